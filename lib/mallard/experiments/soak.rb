# frozen_string_literal: true

module Mallard
  module Experiments
    # Starts the subject, drives external load against it (or lets a script run to its end),
    # samples the memory of its whole process tree meanwhile, then stops everything and
    # summarises from the run directory's records through the one soak reader — the path `mallard report`
    # takes, so a live run and a stored one can never disagree.
    #
    # However it ends — done, a signal, the subject dying, the load tool failing, the subject never coming
    # up — the ending is recorded as a Run::Outcome in meta.json and summary.json, and what was measured is
    # kept.
    class Soak
      VERIFY_GRACE = 2.0

      # The sampling loop's way out when the subject's tree crosses --memory-limit (never leaves #measure).
      # The tick's total record that crossed --memory-limit.
      class LimitCrossed < StandardError
        attr_reader :total

        def initialize(total)
          @total = total
          super("crossed --memory-limit")
        end
      end

      attr_reader :run_dir

      # Whether a Puma tree (a Rack app's, or a --shape's) is loaded a request a connection (SoakOptions#reconnect):
      # where it forks more than one worker. On keep-alive connections each worker keeps what it accepted of the load's
      # first burst, so how the load splits between them is luck, and with it their memory: a 2x1 tree's shared memory
      # 42.2 … 49.0 MiB over eight runs, 40.5 … 41.1 on new connections (bench/keepalive_split.rb).
      def self.new_connections?(tree) = tree.shapes? && tree.workers > 1

      # @param command_line [Array<String>] mallard's own arguments, for meta.json
      # @param command [String] "soak", or "gc" for `mallard gc`: the same run, shown GC first; "heap" for
      #   `mallard heap`, whose ticker (HeapDumps) asks the agent for dumps as the load runs
      # @param ticker [#env, #tick, #after_load, nil] more environment for the subject, a call each sample tick,
      #   and one when the load has ended, before the subject is stopped
      def initialize(target:, options:, run_dir:, reporter:, catalog: Allocators::Catalog.default, command_line: [],
                     command: "soak", ticker: nil)
        @target = target
        @options = Soak.new_connections?(target) ? options.dup.tap { |o| o.reconnect = true } : options
        @run_dir = run_dir
        @reporter = reporter
        @catalog = catalog
        @command_line = command_line
        @command = command
        @ticker = ticker
        @phases = Run::Phases.start
      end

      # @return [Summary::Soak] (also written to summary.json)
      # @raise [SubjectFailed] when the subject never came up (recorded in meta.json first)
      def call
        Lifeline::Signals.guard { measure }
      ensure
        shutdown
      end

      private

      def measure
        @t0 = Clock.monotonic
        pin_mallard
        start_subject
        run_workload
        finish(Run::Outcome.complete)
      rescue SignalException => e # Interrupt (SIGINT) included
        stop_load
        finish(Run::Outcome.signalled(e))
      rescue LimitCrossed => e
        stop_load
        finish(Run::Outcome.failed("memory_limit", crossed(e.total)))
      rescue Workload::SubjectDied
        stop_load
        finish(Run::Outcome.interrupted("subject_exited", "the subject exited mid-run (#{@subject.describe_status}); " \
                                                          "its output is in subject.log"))
      rescue Error => e
        raise unless @phases.up_t # never came up: no run to summarise, only the reason to keep

        stop_load
        finish(Run::Outcome.interrupted(e.is_a?(WriteFailed) ? "write_failed" : "load_failed", e.message))
      end

      def start_subject
        @samples = Run::JsonlWriter.new(@run_dir.file("samples.jsonl"))
        @agent_log = Probe::AgentLog.new(@run_dir.file("agent.jsonl"))
        boot
        @sampler = Probe::Sampler.new(root_pid: @subject.pid, writer: @samples, clock: method(:clock))
      end

      # Up and verified, or the reason it is not, in meta.json before the error reaches the user.
      def boot
        @subject = @target.command(env: subject_env, run_dir: @run_dir, **after_boot) # a job worker's Redis starts here
        refuse_port_in_use
        write_meta
        start_pinned.wait_until_up(timeout: @options.boot_timeout, waiting_for: @target.method(:waiting_for)) do
          @target.ready?
        end
        @phases = @phases.with(up_t: clock)
        verified = verify_allocator
        @phases = @phases.with(diagnosis: allocator_info(verified), gc_settings: gc_settings(verified))
        start_neighbours
        write_meta # now with the subject's PID, for anyone watching the run directory
      rescue UsageError
        raise # refused before anything ran: the run directory is discarded
      rescue Error => e
        @phases = @phases.with(outcome: Run::Outcome.failed("boot_failed", e.message))
        Lifeline::Signals.deferred { write_meta }
        raise
      end

      # --neighbours: the copies beside the subject, up before its load starts (Neighbours).
      def start_neighbours
        return unless @options.neighbours.to_i.positive?

        @neighbours = Neighbours.new(target: @target, options: @options, run_dir: @run_dir)
        @neighbours.start(env: subject_env(agent: false), after_boot: after_boot) { |command| start_pinned(command) }
      end

      # mallard's own threads (sampling, the load client's watcher) and everything it starts but the subject (wrk, a
      # job worker's Redis and workload) run on the load side; shutdown gives mallard its CPUs back.
      def pin_mallard
        layout = @options.cpu_layout
        return unless layout&.pinned

        @own_cpus = Cpus::Affinity.allowed
        Cpus::Affinity.pin_process(layout.load)
      end

      def start_pinned(command = @subject)
        layout = @options.cpu_layout
        return command.start unless layout&.pinned

        Cpus::Affinity.with(layout.subject) { command.start }
      end

      # Something answering before the subject starts would be measured in its place.
      def refuse_port_in_use
        return unless @target.url && Target::HttpProbe.answers?(@target.url)

        raise UsageError, "port in use: something already answers at #{@target.url}; stop it, or put {port} " \
                          "in --url and the command to get a free one"
      end

      def subject_env(agent: @options.agent)
        allocator = @options.allocator && @catalog.fetch(@options.allocator)
        agent = if agent
                  { out: @run_dir.file("agent.jsonl"), t0: @t0, interval: @options.interval,
                    full_gc_every: @options.full_gc_every }
                end
        env = Target::SubjectEnvironment.build(allocator_env: allocator ? allocator.env : {}, agent: agent,
                                               requires: allocator ? allocator.ruby_requires : [],
                                               ruby: @options.subject_ruby.subject_env)
        env.merge(@options.yjit_env(env["RUBYOPT"])).merge(@ticker&.env || {}) # a YJIT size joins RUBYOPT
      end

      # The configuration's action once the app has booted, for a target that runs one (Target::RackApp); compare
      # refuses one for any other before anything runs (Allocators::AfterBoot.check_target).
      def after_boot
        action = @options.allocator && @catalog.fetch(@options.allocator).after_boot
        action ? { after_boot: action } : {}
      end

      # A configuration that did not take effect is an error, never a result. A script is "up" the
      # moment it starts, before Ruby has loaded what RUBYOPT asks for, so the check gets a moment.
      # @return [Summary::Diagnosis] the subject's, verified
      def verify_allocator
        deadline = clock + VERIFY_GRACE
        diagnosis = diagnose
        diagnosis = diagnose while diagnosis.verification_problems.any? && clock < deadline && sleep(0.05)
        problems = diagnosis.verification_problems
        if problems.any?
          raise Error, "the #{@options.allocator} configuration did not take effect: #{problems.join('; ')}"
        end

        diagnosis
      end

      def allocator_info(diagnosis)
        Run::AllocatorInfo.new(allocator: diagnosis.allocator.name, via: diagnosis.allocator.via,
                               library: diagnosis.allocator.path)
      end

      def gc_settings(diagnosis)
        env = diagnosis.environment.select { |name, value| name.start_with?("RUBY_GC_") && value }
        Run::GcSettings.new(ruby_version: diagnosis.ruby&.version, env: env)
      end

      def diagnose
        Probe::Doctor.new(catalog: @catalog).diagnose(@subject.pid, expected: @options.allocator)
      end

      # The target's workload runs until it is done: load until its duration or count, a script until it ends.
      def run_workload
        @workload = @target.workload(options: @options, run_dir: @run_dir, samples: @samples, clock: method(:clock),
                                     agent_log: @agent_log)
        @workload.prepare(@subject)
        @reporter.started(target: @target.describe, run_dir: @run_dir.path, duration: @workload.duration,
                          load: @workload.description, cpus: @options.cpu_layout&.description)
        @until_decided = until_decided
        @phases = @phases.with(load_started_t: clock, until_decided: @until_decided&.record)
        @neighbours&.start_load
        @workload.start(@subject)
        sample_while { @workload.running?(@subject) && !decided? }
        @neighbours&.stop_load
        # A last tick as the load ends: the subject's CPU time per request is read across the window's ends.
        @sampler.sample(requests: @agent_log.requests)
        @phases = @workload.finish(@subject, @phases.with(load_finished_t: clock))
        @ticker&.after_load # with the subject still up: `mallard heap` waits here for the dumps it asked for
      end

      # With --until-decided: whether the run so far decides, and if so the load ends now, as planned. How it stands
      # goes into the phases.
      def decided?
        return false unless @until_decided

        decided = @until_decided.decided?(clock - @phases.load_started_t, @phases)
        @phases = @phases.with(until_decided: @until_decided.record)
        @workload.end_now if decided
        decided
      end

      def until_decided
        return unless @options.until_decided

        UntilDecided.new(run_dir: @run_dir, budget: @options.until_decided, minimum: @options.duration,
                         reporter: @reporter)
      end

      # One tick per interval, aligned to the clock so slow reads do not stretch the series.
      def sample_while
        next_tick = clock
        while yield
          total = @sampler.sample(requests: @agent_log.requests)
          @reporter.sample(total) if total
          watch_limit(total)
          @ticker&.tick(clock - @phases.load_started_t)
          next_tick += @options.interval
          sleep [next_tick - clock, 0].max
        end
      end

      # Where a container's OOM killer would act, mallard stops the run: it has no cgroup of its own to enforce the
      # limit in, so it watches the tree (Analysis::MemoryLimit says against which figure, and why).
      def watch_limit(total)
        limit = @options.memory_limit_kb
        return unless total && limit && Analysis::MemoryLimit.over?(total[Analysis::MemoryLimit::HELD], limit)

        raise LimitCrossed, total
      end

      # When and by how much, in the reason every view of the run (and a comparison's failed row) shows.
      def crossed(total)
        held = total[Analysis::MemoryLimit::HELD]
        format("the subject's tree crossed --memory-limit %<limit>s at %<t>.1f s: its summed PSS %<held>.1f MiB, " \
               "%<over>.1f MiB over (watched, not enforced); it was stopped",
               limit: @options.memory_limit, t: total[:t], held: held / 1024.0,
               over: (held - @options.memory_limit_kb) / 1024.0)
      end

      # Stops load part-way and keeps what it counted; a load tool that cannot say is noted, not fatal.
      def stop_load
        @phases = @phases.with(load_finished_t: @phases.load_finished_t || clock)
        Lifeline::Signals.deferred do
          @neighbours&.stop_load
          @workload&.stop
        end
      rescue Error => e
        @phases = @phases.with(load_error: e.message)
      end

      # Everything from here on is writing what was measured: signals are remembered, not raised. The records
      # are read back through the one reader, with the phases as they stand now (meta.json may not have taken
      # the last write); a summary the directory cannot take is still returned, and says it was not saved.
      def finish(outcome)
        Lifeline::Signals.deferred do
          @phases = @phases.with(outcome: outcome)
          @neighbours&.stop
          @subject&.stop # TERM first: the agent writes its last records at exit
          @phases = @phases.with(stopped_t: clock)
          read = Run::SoakReader.read(@run_dir)
          @ruby_inside = Analysis::RubyFigures.inside(read.ruby_states)
          meta_failure = @run_dir.saved { write_meta }
          run = read.with(meta: read.meta.with(phases: @phases, subject_ruby: subject_ruby))
          summary = @run_dir.save_summary(Analysis::SoakSummary.call(run), earlier: [meta_failure],
                                                                           name: summary_file)
          @reporter.finished(summary)
          summary
        end
      end

      def shutdown
        Lifeline::Signals.deferred do
          @run_dir.saved { @workload&.stop }
          @run_dir.saved { @neighbours&.stop }
          @subject&.stop
          @target.release # after the subject: a job worker's Redis outlives the worker
          @samples&.close
          Cpus::Affinity.pin_process(@own_cpus) if @own_cpus
        end
      end

      def write_meta
        @run_dir.write_json("meta.json", Run::Meta.build(command: @command, argv: @command_line, target: @target,
                                                         options: @options, phases: @phases,
                                                         cpu_layout: @options.cpu_layout,
                                                         subject_pid: @subject&.pid, subject_ruby: subject_ruby))
      end

      # A heap run's summary.json is the heap's: its soak's summary goes beside it.
      def summary_file = RunKind.named(@command).soak_summary_file

      def subject_ruby
        @options.subject_ruby.to_h.merge(@ruby_inside || {})
      end

      def clock
        Clock.monotonic - @t0
      end
    end
  end
end
