# frozen_string_literal: true

module Mallard
  module Experiments
    # `mallard budget`: soaks each entry of the budget file --repeat times (repeats outermost, so a drift of the
    # machine spreads over the entries), each an Experiments::Soak with the agent in a directory of its own below the
    # budget's (entry-E-run-R), loading the entry's paths. The budget is summarised from its directory through the one
    # reader (Run::BudgetReader, Analysis::BudgetSummary), the path `mallard report` takes; with update, a complete
    # budget's measured values are written back to the budget file as its new baselines.
    class Budget
      # @param budget [Run::BudgetFile] as read (or fresh, for a first --update)
      # @param settings [Hash] app, file, update, repeat: what meta.json keeps beside the soak options
      def initialize(target:, options:, budget:, settings:, run_dir:, reporter:, catalog:, command_line: [])
        @target = target
        @options = options
        @budget = budget
        @settings = settings
        @run_dir = run_dir
        @reporter = reporter
        @catalog = catalog
        @command_line = command_line
      end

      # @return [Summary::Budget] (also written to summary.json)
      def call
        Lifeline::Signals.guard { measure_all }
      end

      private

      def measure_all
        @run_dir.write_json("budget.json", @budget.to_h)
        write_meta(Run::Outcome.running)
        (1..@settings[:repeat]).all? do |repeat|
          @budget.entries.each_with_index.all? { |entry, index| soak(entry, index + 1, repeat) }
        end
        finish(Lifeline::Signals.received ? signalled : Run::Outcome.complete)
      rescue SignalException => e
        finish(Run::Outcome.signalled(e))
      end

      # @return [Boolean] whether the soak completed and the budget goes on
      def soak(entry, index, repeat)
        return false if Lifeline::Signals.received

        name = Run::BudgetReader.soak_name(index, repeat)
        @reporter.run_started(label: "#{entry.name} ##{repeat}", repeat: 1, position: position(index, repeat),
                              total: @settings[:repeat] * @budget.entries.size)
        soaked = Soak.new(target: @target, options: soak_options(entry), run_dir: soak_dir(name), reporter: @reporter,
                          catalog: @catalog, command_line: @command_line).call
        @reporter.run_finished(label: name, summary: soaked)
        soaked.complete?
      rescue UsageError
        raise
      rescue Error => e # the soak recorded why in its own meta.json, which the budget's summary reads
        @reporter.run_failed(label: name, reason: e.message)
        false
      end

      def position(index, repeat) = ((repeat - 1) * @budget.entries.size) + index

      def soak_options(entry)
        @options.dup.tap do |options|
          options.paths = entry.paths
          options.agent = true
          options.until_decided = nil
        end
      end

      def soak_dir(name) = Run::Directory.create(command: "soak", out: @run_dir.file(name))

      def signalled = Run::Outcome.interrupted("signal", "mallard received #{Lifeline::Signals.received}")

      def finish(outcome)
        Lifeline::Signals.deferred do
          meta_failure = @run_dir.saved { write_meta(outcome) }
          saved = @run_dir.save_summary(Analysis::BudgetSummary.call(Run::BudgetReader.read(@run_dir)),
                                        earlier: [meta_failure])
          @reporter.finished(saved)
          update(saved) # after the summary is kept: a file that cannot be written costs only the update
          saved
        end
      end

      # --update keeps what a complete budget measured as the file's baselines; a budget that did not complete
      # leaves the file as it was.
      def update(summary)
        return unless @settings[:update] && summary.complete?

        measured = summary.entries.to_h do |entry|
          [entry.name, entry.figures.to_h { |figure| [figure.name, figure.measured] }]
        end
        @budget.with_baselines(measured).write(@settings[:file])
      end

      def write_meta(outcome)
        meta = Run::Meta.build(command: "budget", argv: @command_line, target: @target,
                               options: @options.to_h.merge(@settings), repeat: @settings[:repeat],
                               cpu_layout: @options.cpu_layout, phases: Run::Phases.new(outcome: outcome))
        @run_dir.write_json("meta.json", meta)
      end
    end
  end
end
