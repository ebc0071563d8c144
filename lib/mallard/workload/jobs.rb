# frozen_string_literal: true

module Mallard
  module Workload
    # A job worker's work: the user's workload script pushes jobs for --duration, then mallard stops it (TERM)
    # and lets the worker drain its queues (at most --drain-timeout) before the last samples. Every tick reads
    # the queues from the backend's store (Redis, Solid Queue's database) into a "jobs" record of samples.jsonl;
    # the workload's own ending goes to workload.json.
    #
    # The workload runs as a plain Ruby process as its backend says (Sidekiq's client with REDIS_URL; a Rails
    # app's own environment for Solid Queue), without the agent or the configuration under test: it is the source
    # of the load, not what is measured.
    #
    # With no workload (soak --idle, path nil), the worker is left alone for the duration, its queues still read:
    # whatever its memory does then is the backend's own.
    class Jobs
      # Enough for a well-behaved script to leave its loop and for `bundle exec` to pass the signal on.
      STOP_GRACE = 5
      # An idle process writes its record 1.2 intervals after the last (Agent::Recorder::IDLE_AFTER); then a tick.
      RECORD_WAIT = 3

      # Where a worker's jobs come from, for its description.
      # @param path [String, nil] nil for soak --idle
      def self.source(path) = path ? "jobs from #{File.basename(path)}" : "no jobs (--idle)"

      # @param samples [Run::JsonlWriter] samples.jsonl, which takes a "jobs" record every tick
      # @param clock [#call] the run's clock (seconds since its start), for each record's t
      # @param agent_log [Probe::AgentLog] the soak's own follower of agent.jsonl (how many jobs are running)
      # @param backend [#workload_argv, #workload_env, #open_stats, #stats_hint] the target: how its workload runs
      #   and where its queues are read
      def initialize(path:, dir:, backend:, options:, run_dir:, samples:, clock:, agent_log:)
        @path = path
        @dir = dir
        @backend = backend
        @options = options
        @run_dir = run_dir
        @samples = samples
        @clock = clock
        @agent_log = agent_log
        @state = :pushing
      end

      def description
        return "no jobs: the backend alone (--idle)" unless @path

        "jobs pushed by #{Text.scrub(File.basename(@path))}, then a drain of the queues"
      end

      def duration = @options.duration

      def prepare(_subject) = nil

      def start(_subject)
        @stats = @backend.open_stats
        @started = Clock.monotonic
        return unless @path

        @process = Target::Command.new(@backend.workload_argv(@path), env: environment, chdir: @dir,
                                                                      log_path: @run_dir.file("workload.log"))
        @process.start
      rescue SubjectFailed => e
        raise Error, "the workload #{Text.scrub(@path)} did not start: #{e.message}"
      end

      # Reads the queues, and moves on from pushing to draining to done.
      # @raise [SubjectDied] the worker exited
      # @raise [Error] Redis stopped answering, or the workload failed
      def running?(subject)
        raise SubjectDied unless subject.alive?

        record(read_queues)
        return Clock.monotonic - @started < @options.duration unless @path

        @state = :draining if @state == :pushing && pushing_done?
        return true unless @state == :draining

        !drained_or_out_of_time?
      end

      # @return [Run::Phases] as they were: how the workload ended is its own file
      def finish(_subject, phases)
        stop
        phases
      end

      # Part-way or at the end: the workload is stopped and how it ended is kept.
      def stop
        return if @stats.nil? || @saved

        @saved = true
        stop_workload if @process
        @stats&.close
        @run_dir.write_json("workload.json", ending)
      end

      private

      def environment
        Target::SubjectEnvironment.build(allocator_env: {}, agent: nil).merge(@backend.workload_env)
      end

      def read_queues
        @last = @stats.read
      rescue Error => e
        raise Error, "#{e.message}: the run stops here (#{@backend.stats_hint})"
      end

      def record(queues)
        @samples << { kind: "jobs", t: @clock.call, **queues }
      end

      # The duration is up, or the workload ended by itself (a failure is the run's end; a clean exit, its load
      # having been pushed).
      def pushing_done?
        unless @process.alive?
          @workload_exit = @process.describe_status
          raise Error, failure_message unless @process.status&.success?
        end
        done = !@process.alive? || Clock.monotonic - @started >= @options.duration
        begin_drain if done
        done
      end

      def begin_drain
        stop_workload
        @drain_started = Clock.monotonic
      end

      def drained_or_out_of_time?
        empty = @last[:enqueued].zero? && @agent_log.busy.zero?
        @emptied_at = empty ? (@emptied_at || Clock.monotonic) : nil
        @drained = empty && counted_all?
        over = @drained || Clock.monotonic - @drain_started >= @options.drain_timeout
        @drain_s = (Clock.monotonic - @drain_started).round(2) if over
        over
      end

      # The agent writes each process's record once an interval, and a backend that ends its processes with exit!
      # (Solid Queue's) loses the last: a 15 s soak's agent counted 1,195 jobs of Solid Queue's 1,240, its
      # worker's last record 0.5 s before the queues were empty. So once they are, the drain also waits for the agent's
      # count to reach the backend's own, for at most RECORD_WAIT intervals: a store shared with others (--redis)
      # counts jobs the agent never saw.
      def counted_all?
        @agent_log.requests >= @last[:processed] || Clock.monotonic - @emptied_at >= RECORD_WAIT * @options.interval
      end

      def stop_workload
        return if @stopped

        @stopped = true
        @workload_exit ||= @process.alive? ? "stopped by mallard" : @process.describe_status
        @process.stop(grace: STOP_GRACE)
      end

      def failure_message
        tail = @process.output_tail(5).join("\n  ")
        "the workload #{Text.scrub(@path)} failed (#{@workload_exit}); its last lines (workload.log):\n  #{tail}"
      end

      def ending
        left = @last&.fetch(:enqueued)
        return { path: nil, exit: "idle", drained: left&.zero? || false, drain_s: nil, left: left } unless @path

        { path: Text.scrub(@path), exit: @workload_exit, drained: @drained || false,
          drain_s: @drain_s, left: @last&.fetch(:enqueued) }
      end
    end
  end
end
