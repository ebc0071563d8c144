# frozen_string_literal: true

require_relative "../value"
require_relative "outcome"

module Mallard
  module Run
    # The allocator a subject was verified to run with (Probe::Doctor's reading).
    AllocatorInfo = Value.define(:allocator, :via, :library)

    # The RUBY_GC_* variables a subject started with (its /proc environ, read at boot) and its Ruby's version.
    GcSettings = Value.define(:ruby_version, :env)

    # How `soak --until-decided` went: its budget (seconds of load), how many times it looked, what its last look
    # left undecided, when it decided (seconds of load; nil: the budget ran out first), and the CPU time mallard
    # spent looking.
    UntilDecided = Value.define(:budget_s, :looks, :undecided, :decided_s, :look_cpu_s)

    # When each phase of a soak began, in seconds since the run's start, and how the run ended so far.
    # A soak killed before it could finish keeps outcome "running": it never said it ended.
    Phases = Value.define(:started_at, :up_t, :load_started_t, :load_finished_t, :stopped_t, :exit_status,
                          :load_error, outcome: Outcome, diagnosis: AllocatorInfo, gc_settings: GcSettings,
                                       until_decided: UntilDecided)

    class Phases
      # A record of schema 1 kept its outcome as two plain fields.
      def self.from_h(hash)
        return super if hash.nil? || hash.is_a?(self) || hash.key?("outcome") || hash.key?(:outcome)

        legacy = hash.transform_keys(&:to_s)
        super(legacy.merge("outcome" => { "status" => legacy["status"], "reason" => legacy["reason"],
                                          "cause" => legacy_cause(legacy["reason"]) }))
      end

      def self.legacy_cause(reason)
        return if reason.nil?

        reason.start_with?("mallard received") ? "signal" : "subject_exited"
      end
      private_class_method :legacy_cause

      def self.start
        new(started_at: Time.now.utc.strftime("%Y-%m-%dT%H:%M:%SZ"), outcome: Outcome.running)
      end

      # The span load ran; a run killed before load finished runs to the end of its samples.
      def load_window
        (load_started_t || 0)..(load_finished_t || Float::INFINITY)
      end
    end
  end
end
