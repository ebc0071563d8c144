# frozen_string_literal: true

module Mallard
  module Experiments
    # `mallard plan`: soaks the app --repeat times in a measured shape (MEASURED_WORKERS preloaded workers of the
    # threads asked) at the offered load given, reads the master's, the shared and the per-worker parts from those
    # soaks (Analysis::Plan), and soaks once more at the largest worker count they predict to fit the limit, offered
    # the same load per worker, watched against the limit as soak --memory-limit watches it. Every soak is an
    # Experiments::Soak in a directory of its own below the plan's (measure-1 …, check), without the agent (its
    # objects would be counted in every worker), each in a fresh tree.
    #
    # The plan is summarised from its directory through the one reader (Run::PlanReader, Analysis::PlanSummary), the
    # path `mallard report` takes: the count checked is the count the summary chose.
    class Plan
      MEASURED_WORKERS = 2

      # @param threads [Integer] Puma threads per worker, in every soak
      # @param options [SoakOptions] the load (rate: in all, for the measured shape) and the limit (memory_limit)
      def initialize(target:, options:, threads:, repeat:, run_dir:, reporter:, catalog:, command_line: [])
        @target = target
        @options = options
        @measured = PumaShape.new(MEASURED_WORKERS, threads)
        @repeat = repeat
        @run_dir = run_dir
        @reporter = reporter
        @catalog = catalog
        @command_line = command_line
        @soaks = 0
      end

      # @return [Summary::Plan] (also written to summary.json)
      def call
        Lifeline::Signals.guard { measure_all }
      end

      private

      def measure_all
        @shapes = [@measured]
        write_meta(Run::Outcome.running)
        measured = (1..@repeat).all? { |index| soak("#{Run::PlanReader::MEASURE}#{index}", @measured) }
        check if measured
        finish(Lifeline::Signals.received ? signalled : Run::Outcome.complete)
      rescue SignalException => e
        finish(Run::Outcome.signalled(e))
      end

      # The count the measuring soaks chose, soaked in turn; none when not even one worker fits.
      def check
        workers = summary.plan&.workers.to_i
        return unless workers.positive?

        shape = PumaShape.new(workers, @measured.threads)
        @shapes << shape
        write_meta(Run::Outcome.running)
        soak(Run::PlanReader::CHECK, shape, limit: @options.memory_limit)
      end

      # @return [Boolean] whether the soak completed and the plan goes on
      def soak(name, shape, limit: nil)
        return false if Lifeline::Signals.received

        @soaks += 1
        @reporter.run_started(label: "#{name} #{shape.label}", repeat: 1, position: @soaks, total: @repeat + 1)
        soaked = Soak.new(target: @target.shaped(shape), options: soak_options(shape, limit), run_dir: soak_dir(name),
                          reporter: @reporter, catalog: @catalog, command_line: @command_line).call
        @reporter.run_finished(label: name, summary: soaked)
        soaked.complete?
      rescue UsageError
        raise
      rescue Error => e # the soak recorded why in its own meta.json, which the plan's summary reads
        @reporter.run_failed(label: name, reason: e.message)
        false
      end

      # Each worker is offered what a measured one was: the rate, and the connections, scaled by the workers; every
      # request on a new connection where there are several (Soak.new_connections?, as for the measured shape). On
      # keep-alive connections a 15-worker check of the demo app on 10 connections left five workers at 3 MiB of USS,
      # against 25 for a worker that served; a 5x5 check of a Rails app on 100 came out 8.6% under its prediction,
      # 17 MiB short, as if one worker had served little.
      def soak_options(shape, limit)
        scale = shape.workers.fdiv(MEASURED_WORKERS)
        @options.dup.tap do |options|
          options.rate = (@options.rate * scale).round(3)
          options.concurrency = [(@options.concurrency * scale).ceil, open_connections].min
          options.memory_limit = limit
          options.agent = false
          options.until_decided = nil
        end
      end

      # As many connections as the open-files limit leaves room for (SoakOptions refuses more for the measured shape).
      def open_connections = Process.getrlimit(:NOFILE).first - SoakOptions::SPARE_FILES

      def soak_dir(name) = Run::Directory.create(command: "soak", out: @run_dir.file(name))

      def signalled = Run::Outcome.interrupted("signal", "mallard received #{Lifeline::Signals.received}")

      def finish(outcome)
        Lifeline::Signals.deferred do
          meta_failure = @run_dir.saved { write_meta(outcome) }
          saved = @run_dir.save_summary(summary, earlier: [meta_failure])
          @reporter.finished(saved)
          saved
        end
      end

      def summary = Analysis::PlanSummary.call(Run::PlanReader.read(@run_dir))

      # configs: the measured shape, then the checked one once it is known; the outcome as it stands (running until
      # the plan ends), which a summary from the raw files takes when the plan was stopped.
      def write_meta(outcome)
        @run_dir.write_json("meta.json", Run::Meta.build(command: "plan", argv: @command_line,
                                                         target: @target.in_shapes(@shapes), options: @options,
                                                         configs: @shapes.map(&:label), repeat: @repeat,
                                                         cpu_layout: @options.cpu_layout,
                                                         phases: Run::Phases.new(outcome: outcome)))
      end
    end
  end
end
