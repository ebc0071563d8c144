# frozen_string_literal: true

module Mallard
  module Experiments
    # Starts the subject, drives external load against it (or lets a script run to its end),
    # samples the memory of its whole process tree meanwhile, then stops everything and
    # summarises from the run directory's files — the same path `mallard report` takes, so a
    # live run and a stored one can never disagree.
    class Soak
      # The subject exited while it was being measured.
      class SubjectDied < StandardError; end

      VERIFY_GRACE = 2.0

      attr_reader :run_dir

      def initialize(target:, options:, run_dir:, reporter:, catalog: Allocators::Catalog.default)
        @target = target
        @options = options
        @run_dir = run_dir
        @reporter = reporter
        @catalog = catalog
        @phases = { status: "running", started_at: Time.now.utc.strftime("%Y-%m-%dT%H:%M:%SZ") }
      end

      # @return [Hash] the summary (also written to summary.json)
      def call
        @t0 = Clock.monotonic
        start_subject
        @target.url ? drive_load : wait_for_script
        @phases[:status] = "complete"
        finish
      rescue SignalException => e # Interrupt (SIGINT) included
        interrupted("mallard received #{signal_name(e)}")
      rescue SubjectDied
        interrupted("the subject exited mid-run (#{@subject.describe_status}); its output is in subject.log")
      ensure
        shutdown
      end

      private

      def start_subject
        @samples = Run::JsonlWriter.new(@run_dir.file("samples.jsonl"))
        @agent_log = Probe::AgentLog.new(@run_dir.file("agent.jsonl"))
        @subject = @target.command(env: subject_env, run_dir: @run_dir)
        refuse_port_in_use
        write_meta
        @subject.start.wait_until_up(timeout: @options.boot_timeout, waiting_for: @target.method(:waiting_for)) do
          @target.ready?
        end
        @phases[:up_t] = clock
        @phases[:diagnosis] = verify_allocator
        write_meta # now with the subject's PID, for anyone watching the run directory
        @sampler = Probe::Sampler.new(root_pid: @subject.pid, writer: @samples, clock: method(:clock))
      end

      # Something answering before the subject starts would be measured in its place.
      def refuse_port_in_use
        return unless @target.url && Target::HttpProbe.answers?(@target.url)

        raise UsageError, "port in use: something already answers at #{@target.url}; stop it, or put {port} " \
                          "in --url and the command to get a free one"
      end

      def subject_env
        allocator = @options.allocator && @catalog.fetch(@options.allocator)
        agent = { out: @run_dir.file("agent.jsonl"), t0: @t0, interval: @options.interval }
        Target::SubjectEnvironment.build(allocator_env: allocator ? allocator.env : {}, agent: agent,
                                         requires: allocator ? allocator.ruby_requires : [])
      end

      # A configuration that did not take effect is an error, never a result. A script is "up" the
      # moment it starts, before Ruby has loaded what RUBYOPT asks for, so the check gets a moment.
      def verify_allocator
        deadline = clock + VERIFY_GRACE
        diagnosis = diagnose
        diagnosis = diagnose while diagnosis.verification_problems.any? && clock < deadline && sleep(0.05)
        problems = diagnosis.verification_problems
        if problems.any?
          raise Error, "the #{@options.allocator} configuration did not take effect: #{problems.join('; ')}"
        end

        { allocator: diagnosis.allocator.name, via: diagnosis.allocator.via, library: diagnosis.allocator.path }
      end

      def diagnose
        Doctor.new(catalog: @catalog).diagnose(@subject.pid, expected: @options.allocator)
      end

      def drive_load
        @load = Probe::Load.driver(url: @target.url, paths: @options.paths, duration: @options.duration,
                                   requests: @options.requests, concurrency: @options.concurrency,
                                   log_path: @run_dir.file("load.log"), force_ruby: @options.ruby_client)
        @reporter.started(target: @target.describe, run_dir: @run_dir.path, duration: @options.duration,
                          load: load_description)
        @phases[:load_started_t] = clock
        @load.start
        sample_while { @load.running? }
        @phases[:load_finished_t] = clock
        save_load_result
      end

      def wait_for_script
        @reporter.started(target: @target.describe, run_dir: @run_dir.path, duration: nil, load: nil)
        @phases[:load_started_t] = @phases[:up_t]
        sample_while(script: true) { @subject.alive? }
        @phases[:load_finished_t] = clock
        @phases[:exit_status] = @subject.status&.exitstatus
      end

      # One tick per interval, aligned to the clock so slow reads do not stretch the series.
      def sample_while(script: false)
        next_tick = clock
        while yield
          raise SubjectDied if !script && !@subject.alive?

          total = @sampler.sample(requests: @agent_log.requests)
          @reporter.sample(total) if total
          next_tick += @options.interval
          sleep [next_tick - clock, 0].max
        end
      end

      def load_description
        return "wrk" if @load.is_a?(Probe::Wrk)

        reason = @options.ruby_client ? "--ruby-client" : "wrk not found"
        "mallard's built-in client (#{reason}). #{Probe::Load.fallback_note}"
      end

      def save_load_result
        @run_dir.write_json("load.json", @load.result.to_h)
      end

      def interrupted(reason)
        @phases.merge!(status: "interrupted", reason: reason, load_finished_t: clock)
        @load&.stop
        save_load_result if @load
        finish
      rescue Error => e
        @phases[:load_error] = e.message
        finish
      end

      def finish
        @subject&.stop # TERM first: the agent writes its last records at exit
        @phases[:stopped_t] = clock
        write_meta
        @run_dir.write_json("summary.json", Analysis::SoakSummary.from_run(@run_dir))
        summary = @run_dir.read_json("summary.json") # views see exactly what a stored run holds
        @reporter.finished(summary)
        summary
      end

      def shutdown
        @load&.stop
        @subject&.stop
        @samples&.close
      end

      def write_meta
        @run_dir.write_json("meta.json", Run::Meta.build(command: "soak", target: @target, options: @options,
                                                         phases: @phases, subject: @subject))
      end

      def signal_name(error)
        error.is_a?(Interrupt) ? "SIGINT" : "SIG#{Signal.signame(error.signo)}"
      end

      def clock
        Clock.monotonic - @t0
      end
    end
  end
end
