# frozen_string_literal: true

require "shellwords"

module Mallard
  module Target
    # A subject process that mallard starts and must stop. It runs in its own process group, so
    # stopping it also stops whatever it forked (Puma workers, a shell's children), and its output
    # goes to a log file whose last lines explain a failure. It is started through the Lifeline, so
    # it ends with mallard even when mallard is killed.
    class Command
      TAIL_LINES = 20
      POLL = 0.05

      attr_reader :argv, :pid, :log_path, :status

      # @param spawn_options [Hash] more options for Process.spawn (uid:, gid: for --user)
      def initialize(argv, log_path:, env: {}, chdir: Dir.pwd, spawn_options: {})
        @argv = argv
        @env = env
        @log_path = log_path
        @chdir = chdir
        @spawn_options = spawn_options
      end

      def start
        @pid = Lifeline.spawn(@env, *@argv, chdir: @chdir, in: File::NULL, out: [@log_path, "w", 0o600],
                                            err: %i[child out], **@spawn_options)
        self
      rescue SystemCallError => e
        raise SubjectFailed, "cannot start `#{display}`: #{e.message.sub(/ - .*/, '')}"
      end

      def alive?
        return false if @status

        reaped, @status = Process.waitpid2(@pid, Process::WNOHANG)
        reaped.nil?
      rescue Errno::ECHILD
        false
      end

      # Waits until the block says the subject is up, failing early if it exits.
      # @param waiting_for [#call, nil] says, when the time is up, what was missing ("no answer at URL"),
      #   so the message names what was polled
      # @yieldreturn [Boolean] whether the subject is ready
      def wait_until_up(timeout:, waiting_for: nil, &ready)
        raise timed_out(timeout, waiting_for) unless wait_for(timeout: timeout, &ready)

        self
      end

      # Like #wait_until_up, but running out of time is an answer, not a failure.
      # @return [Boolean] whether the block said yes before the time was up
      def wait_for(timeout:)
        deadline = Clock.monotonic + timeout
        loop do
          raise failure("exited (#{describe_status}) before it was up") unless alive?
          return true if yield
          return false if Clock.monotonic > deadline

          sleep POLL
        end
      end

      # Starts it and waits for its end: a step that prepares a run (initdb, `bin/rails db:prepare`).
      # @param what [String] what it was to do, for the failure ("make the queue database")
      # @raise [SubjectFailed] it failed or was still running after timeout seconds, with its last lines
      def run!(timeout:, what:)
        start
        deadline = Clock.monotonic + timeout
        sleep POLL while alive? && Clock.monotonic < deadline
        return self if status&.success?

        stop
        raise SubjectFailed.new("`#{display}` did not #{what} (#{describe_status})", output_tail: output_tail)
      end

      # TERM to the whole group, then KILL whatever is left after the grace period.
      def stop(grace: 5)
        return unless @pid

        signal_group("TERM")
        deadline = Clock.monotonic + grace
        sleep POLL while group_alive? && Clock.monotonic < deadline
        signal_group("KILL") if group_alive?
        alive? # reap the leader if it has not been
        Lifeline.release(@pid) unless group_alive?
      end

      # Stored in summaries and printed, so scrubbed: a subject may write any bytes.
      def output_tail(lines = TAIL_LINES)
        File.readlines(@log_path, chomp: true).last(lines).map { |line| Text.scrub(line) }
      rescue SystemCallError
        []
      end

      # The command line as mallard shows and records it; the argv it runs keeps its bytes.
      def display
        Shellwords.join(@argv.map { |arg| Text.scrub(arg) })
      end

      # How it ended: "exit status 1", "killed by signal 9".
      def describe_status
        ProcessStatus.describe(@status)
      end

      private

      def timed_out(timeout, waiting_for)
        missing = waiting_for&.call
        failure("was not up after #{format('%g', timeout)} s#{": #{missing}" if missing}")
      end

      def failure(what)
        SubjectFailed.new("`#{display}` #{what}", output_tail: output_tail)
      end

      def signal_group(signal)
        Process.kill(signal, -@pid)
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end

      def group_alive?
        alive?
        Process.kill(0, -@pid)
        true
      rescue Errno::ESRCH, Errno::EPERM
        false
      end
    end
  end
end
