# frozen_string_literal: true

# mallard's in-process agent, loaded into the app under test with RUBYOPT="-I<lib> -rmallard/agent".
# It stays small and self-contained (its own files and json only, never the whole gem) because it
# runs inside someone else's process, and it does nothing unless MALLARD_AGENT_OUT is set.
#
# What it loads is allocated in the app's heap before the app is: each part is loaded only when it is used (a GC
# timeline from the one source chosen, the job hook only in a job worker, the heap dumper only for `mallard heap`),
# as an allocation-bound app's GCs run differently with every thousand objects more at boot (bench/README.md).
require_relative "agent/gc_snapshot"
require_relative "agent/recorder"
require_relative "agent/owner"
require_relative "agent/middleware"
require_relative "agent/switches"
require_relative "agent/ruby_state"

module Mallard
  module Agent
    DEFAULT_INTERVAL = 0.5

    # Ruby 3.1+ routes every fork (Kernel#fork, Process.fork, IO.popen("-")) through Process._fork.
    # A thread does not survive fork, so each child (a Puma worker) restarts its own recorder and
    # writes records under its own pid.
    module ForkHook
      def _fork
        pid = super
        Agent.forked if pid.zero?
        pid
      end
    end

    class << self
      attr_reader :recorder

      # Starts recording when env names an output file; returns the recorder, or nil. Idempotent.
      # The final record is written at exit; no signal handler is installed, as it would replace the app's.
      def start(env = ENV)
        return @recorder if @recorder

        path = env["MALLARD_AGENT_OUT"]
        return if path.nil? || path.empty?

        origin = @origin = origin_from(env)
        jobs = env[Switches::JOBS]
        jobs = nil if jobs.nil? || jobs.empty?
        @timeline_note = {}
        @recorder = Recorder.new(path: path, interval: interval_from(env), origin: origin,
                                 owner: Owner.from_env(env), gc_timeline: gc_timeline(env, origin),
                                 jobs: !jobs.nil?, ledger: ledger(env, origin), full_gc: full_gc(env))
        watch_jobs(jobs) if jobs
        @heap_dumper = heap_dumper(env[Switches::HEAP_DIR], origin)
        Process.singleton_class.prepend(ForkHook) if Process.respond_to?(:_fork)
        at_exit { stopped(origin) }
        note_ruby("boot", origin, **malloc_options)
        @recorder.start
      end

      # In a forked child. A heap dump's child (HeapDumper) records nothing: it only dumps. Nor does a child that runs
      # one job its parent records (ResqueHook): not even at exit, should it run at_exit.
      def forked
        return if @heap_dumper&.dumping?
        return @recorder = nil if @job_hook.respond_to?(:parent_records?) && @job_hook.parent_records?

        @recorder&.after_fork
        @heap_dumper&.after_fork
        @job_hook&.after_fork
        note_ruby("fork", @origin) if @recorder
      end

      private

      # Which backend's jobs (Switches::JOBS): Active Job's notifications, Resque's, or Sidekiq's middleware ("on").
      def watch_jobs(backend)
        case backend
        when Switches::ACTIVE_JOB
          require_relative "agent/active_job_hook"
          @job_hook = ActiveJobHook
          ActiveJobHook.watch(@recorder)
        when Switches::RESQUE
          require_relative "agent/resque_hook"
          @job_hook = ResqueHook
          ResqueHook.watch(@recorder)
        else
          require_relative "agent/sidekiq_hook"
          SidekiqHook.watch(@recorder)
        end
      end

      def heap_dumper(dir, origin)
        return if dir.nil? || dir.empty?

        require_relative "agent/heap_dumper"
        HeapDumper.start(dir, origin: origin)
      end

      def stopped(origin)
        return unless @recorder

        @recorder.stop
        note_ruby("end", origin)
      end

      # With which per-GC timeline, and why not the hooks, when they could not run (say, no extension built for
      # this Ruby): the run says so, not only the app's log.
      def note_ruby(at, origin, **more)
        @recorder.note(RubyState.line(at: at, time: Process.clock_gettime(Process::CLOCK_MONOTONIC) - origin,
                                      **@timeline_note, **more))
      end

      # jemalloc's options as the process took them, in the boot line, for a row's MALLOC_CONF to be checked against
      # (Allocators::JemallocConf). Read through the malloc statistics the ledger loads: without it, none.
      def malloc_options
        options = defined?(MallocStats) ? MallocStats.options : {}
        options.empty? ? {} : { jemalloc_options: options }
      end

      # The per-GC timeline is on by default on every Ruby, each from the source that costs it least. GC event
      # hooks (GcTimeline) cost little per GC, but on Ruby 3.1 and 3.2 any internal GC hook sends every allocation
      # through the GC's slow path (fixed in 3.3, ruby/ruby#8378): 2-8% of a GC-heavy app's throughput
      # (bench/README.md). There GC::Profiler (GcProfilerTimeline), which works only inside each GC, records them.
      # MALLARD_GC_EVENTS names a source ("hooks", "profiler") to measure one against the other, or "off".
      def gc_timeline(env, origin)
        source = gc_timeline_source(env["MALLARD_GC_EVENTS"])
        return unless source

        reason = source.start
        return timeline(source, origin) unless reason
        return fallback(reason, origin) if source::SOURCE == "hooks" && env["MALLARD_GC_EVENTS"] != "hooks"

        warn "mallard agent: per-GC timing is unavailable (#{reason}); the interval records still carry GC counts"
        nil
      end

      def timeline(source, origin)
        @timeline_note[:gc_timeline] ||= source::SOURCE
        source.new(origin: origin)
      end

      # No GC hooks for this Ruby: GC::Profiler times the GCs instead (no longest step, no heap pages).
      def fallback(reason, origin)
        source = profiler
        @timeline_note.update(gc_timeline: source::SOURCE, hooks_unavailable: reason)
        warn "mallard agent: GC hooks are unavailable (#{reason}); GC::Profiler times each GC instead"
        return timeline(source, origin) unless source.start

        @timeline_note[:gc_timeline] = nil
        nil
      end

      def gc_timeline_source(wanted)
        case wanted
        when "off" then nil
        when "hooks" then hooks
        when "profiler" then profiler
        else RUBY_VERSION >= "3.3" ? hooks : profiler
        end
      end

      def hooks
        require_relative "agent/gc_timeline"
        GcTimeline
      end

      def profiler
        require_relative "agent/gc_profiler_timeline"
        GcProfilerTimeline
      end

      # Loaded only when recording (it loads the malloc statistics extension), and optional: without its files
      # the agent records the rest.
      def ledger(env, origin)
        require_relative "agent/ledger"
        Ledger.from_env(env, origin: origin)
      rescue LoadError
        nil
      end

      # Loaded only when asked for (Switches says why).
      def full_gc(env)
        return unless env[Switches::FULL_GC]

        require_relative "agent/full_gc"
        FullGc.from_env(env)
      end

      def interval_from(env)
        interval = Float(env["MALLARD_AGENT_INTERVAL"], exception: false)
        interval&.positive? ? interval : DEFAULT_INTERVAL
      end

      # Without MALLARD_T0, t counts from the agent's start (forked children inherit the same origin).
      def origin_from(env)
        Float(env["MALLARD_T0"], exception: false) || Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end
    end
  end
end

Mallard::Agent.start
