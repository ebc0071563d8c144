# frozen_string_literal: true

require "etc"

module Mallard
  module Experiments
    # Boots the app --repeat times, each in a fresh Ruby (BootProbe::Program), as many side by side as there are
    # CPUs (memory is read per process, so neighbours do not disturb it), plus (--objects) one pass with allocation
    # tracing; then summarises through the one boot reader, the path `mallard report` takes.
    #
    # A boot that raises stops the run at once (the next would raise too): the run fails with the app's error.
    # A signal stops every probe and keeps what the finished repeats measured.
    class Boot
      POLL = 0.05
      # One-line keys of options.to_h that the analysis reads back from meta.json.
      Options = Struct.new(:repeat, :environment, :cutoff_mb, :workers, :allocator, :objects, :timeout, :parallel,
                           :ruby, keyword_init: true) do
        # The Ruby the app boots on (Target::SubjectRuby): --ruby's, else mallard's own.
        attr_writer :subject_ruby

        def subject_ruby = @subject_ruby ||= Target::SubjectRuby.own

        def self.defaults
          new(repeat: 5, environment: "production", cutoff_mb: 0.3, workers: 0, objects: false, timeout: 300,
              parallel: Etc.nprocessors)
        end
      end

      # @param app [Target::BootApp]
      # @param options [Options]
      def initialize(app:, options:, run_dir:, reporter:, catalog: Allocators::Catalog.default, command_line: [])
        @app = app
        @options = options
        @run_dir = run_dir
        @reporter = reporter
        @allocator = options.allocator && catalog.fetch(options.allocator)
        @command_line = command_line
        @phases = Run::Phases.start
        @running = {}
      end

      # @return [Summary::Boot] (also written to summary.json)
      def call
        Lifeline::Signals.guard { measure }
      ensure
        stop_all
      end

      private

      def measure
        check_allocator
        @t0 = Clock.monotonic
        @samples = Run::JsonlWriter.new(@run_dir.file("samples.jsonl"))
        write_meta
        @reporter.begin_run(app: @app.describe, run_dir: @run_dir.path, repeats: @options.repeat,
                            objects: @options.objects, parallel: @options.parallel)
        run_all(jobs)
        finish(ending)
      rescue SignalException => e
        stop_all
        finish(Run::Outcome.signalled(e))
      end

      # A signal that arrived while a probe was being started was only remembered (see #start).
      def ending
        signal = Lifeline::Signals.received
        return Run::Outcome.interrupted("signal", "mallard received #{signal}") if signal

        @failed ? Run::Outcome.failed("boot_failed", @failed) : Run::Outcome.complete
      end

      def check_allocator
        return if @allocator.nil? || @allocator.available?

        raise UsageError, "allocator #{@allocator.name} is not available here: #{@allocator.unavailable_reason}"
      end

      # The objects pass first: it is the slowest, and runs beside the memory repeats.
      def jobs
        [*("objects" if @options.objects), *(1..@options.repeat)]
      end

      def run_all(queue)
        queue = queue.dup
        until (queue.empty? || stopping?) && @running.empty?
          start(queue.shift) while @running.size < @options.parallel && !queue.empty? && !stopping?
          sleep POLL
          @running.each { |job, (probe, started)| check(job, probe, started) }
          @running.select! { |_job, (probe, _started)| probe.alive? }
        end
      end

      # A boot that failed, or a signal remembered while a probe was being started: start no more.
      def stopping?
        !@failed.nil? || !Lifeline::Signals.received.nil?
      end

      # Deferred: a signal between the spawn and the probe's entry in @running would leave that probe unstopped.
      def start(job)
        Lifeline::Signals.deferred { start_probe(job) }
        stop_all if Lifeline::Signals.received
      end

      def start_probe(job)
        ruby = @options.subject_ruby
        env = @app.env(@allocator, ruby: ruby.subject_env)
                  .merge("MALLARD_BOOT_OUT" => @run_dir.file("samples.jsonl"), "MALLARD_BOOT_REPEAT" => job.to_s,
                         "MALLARD_BOOT_WORKERS" => @options.workers.to_s)
        probe = Target::Command.new(@app.command(ruby.path), log_path: @run_dir.file("boot-#{job}.log"), env: env,
                                                             chdir: @app.dir).start
        @running[job] = [probe, Clock.monotonic]
        @reporter.started(job)
      end

      # A probe that ended is judged by its lines and its exit; one past the time limit is stopped.
      def check(job, probe, started)
        if probe.alive?
          return unless Clock.monotonic - started > @options.timeout

          probe.stop
          return ended(job, "did not finish its boot in #{@options.timeout} s (--timeout)", probe, timed_out: true)
        end
        probe.stop(grace: 1) # its forked workers, should any be left
        return @reporter.finished_repeat(job) if probe.status.success?

        ended(job, "ended with #{probe.describe_status}", probe)
      end

      # The probe writes a "failed" line itself when the app raised; this line says how the process ended, with
      # its last output, for a probe that could not (killed, crashed, timed out).
      def ended(job, how, probe, timed_out: false)
        tail = probe.output_tail(5).join(" | ")
        @samples << { type: "exited", repeat: job, how: how, output: tail, timed_out: timed_out }
        @failed ||= "repeat #{job} #{how}#{": #{tail}" unless tail.empty?}"
        @reporter.failed_repeat(job, how)
      end

      def stop_all
        Lifeline::Signals.deferred do
          @running.each_value { |probe, _started| probe.stop(grace: 1) }
          @running.clear
        end
      end

      def finish(outcome)
        Lifeline::Signals.deferred do
          @phases = @phases.with(outcome: outcome, stopped_t: Clock.monotonic - @t0)
          meta_failure = @run_dir.saved { write_meta }
          @samples&.close
          read = Run::BootReader.read(@run_dir)
          run = read.with(meta: read.meta.with(phases: @phases))
          @run_dir.save_summary(Analysis::BootSummary.call(run), earlier: [meta_failure])
        end
      end

      def write_meta
        @run_dir.write_json("meta.json", Run::Meta.build(command: "boot", argv: @command_line, target: @app,
                                                         options: @options.to_h.merge(mode: @app.mode),
                                                         phases: @phases, subject_ruby: @options.subject_ruby.to_h))
      end
    end
  end
end
