# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Run
    # How a run ended, as data: a status, the cause when it did not complete, and the reason in words. The one
    # place an ending becomes an exit status.
    #
    # status: complete | interrupted (stopped part-way: what was measured is kept) | failed (ran, but is no
    # measurement: too many errors, or nothing valid to compare). cause: signal | subject_exited | boot_failed |
    # load_failed | write_failed | errors | no_valid_runs | no_dumps (`mallard heap`: not three dumps to compare) |
    # memory_limit (the subject's tree crossed --memory-limit) | no_fit (`mallard plan`: not one worker fits) | error.
    Outcome = Value.define(:status, :cause, :reason)

    class Outcome
      EXIT_STATUSES = { "signal" => 130, "subject_exited" => 69, "boot_failed" => 69, "load_failed" => 69,
                        "errors" => 65, "no_valid_runs" => 65, "memory_limit" => 65, "no_dumps" => 65, "no_fit" => 65,
                        "write_failed" => 74, "error" => 70 }.freeze

      def self.complete = new(status: "complete")
      def self.running = new(status: "running")

      def self.interrupted(cause, reason)
        new(status: "interrupted", cause: cause, reason: reason)
      end

      def self.failed(cause, reason)
        new(status: "failed", cause: cause, reason: reason)
      end

      # @param signal [SignalException]
      def self.signalled(signal)
        name = signal.is_a?(Interrupt) ? "SIGINT" : "SIG#{Signal.signame(signal.signo)}"
        interrupted("signal", "mallard received #{name}")
      end

      def complete? = status == "complete"
      def signalled? = cause == "signal"

      # 0 complete; 130 stopped by a signal; 69 the subject or its load failed; 65 a failed measurement;
      # 74 the run directory took no more writes.
      def exit_status
        complete? ? 0 : EXIT_STATUSES.fetch(cause.to_s, 70)
      end
    end
  end
end
