# frozen_string_literal: true

module Mallard
  module Analysis
    # A comparison's summary: the rows as measured, the statistics over them, and the recommendation — computed
    # the same way live and for `mallard report`, from the rows alone.
    module CompareSummary
      module_function

      # @param rows [Array<Summary::Row>]
      # @param outcome [Run::Outcome]
      # @param target [Run::TargetInfo]
      # @return [Summary::Compare]
      # @param until_resolved [Float, nil] compare --until-resolved: the half-width every interval should be under
      # @param cpu_layout [Cpus::Layout, nil] where the subjects ran
      # @param production_cpus [Integer, nil] --production-cpus: the host glibc's rows were sized for
      # @param figures_from [String] "clean" (counted runs without the agent, one run with it per row) or "instrumented"
      # @param instrumented_lost [String, nil] why a run with the agent did not count, for when none did (AgentCost)
      # @param gc_suggestions [Array<Summary::GcSuggestion>, nil] compare --gc: what the baseline's GC suggested
      def call(rows:, outcome:, run_dir:, target:, until_resolved: nil, cpu_layout: nil, production_cpus: nil,
               figures_from: "clean", instrumented_lost: nil, gc_suggestions: nil, like: nil)
        comparison = Comparison.call(rows, baseline: rows.first&.name || "glibc")
        outcome = judged_outcome(outcome, comparison)
        Summary::Compare.new(schema_version: Run::Directory::SCHEMA_VERSION, kind: "compare", **outcome.to_h,
                             run_dir: run_dir, target: target, baseline: comparison.baseline,
                             metric: comparison.metric, figures_from: figures_from, configs: comparison.configs,
                             recommendation: recommendation(outcome, comparison, production_cpus, cpu_layout),
                             rows: rows, resolution: resolution(comparison, until_resolved), cpu_layout: cpu_layout,
                             agent_cost: AgentCost.call(rows, metric: comparison.metric, lost: instrumented_lost),
                             gc_suggestions: gc_suggestions,
                             yjit_choices: YjitChoice.call(rows, metric: comparison.metric), like: like)
      end

      def resolution(comparison, pct)
        Resolution.call(comparison.configs, pct: pct, baseline: comparison.baseline) if pct
      end

      # The summary of a stored comparison. Its figures come from its soak runs' summaries as they ended, so a
      # comparison stopped before writing summary.json is reported run by run instead.
      # @param run [Run::CompareRun]
      # @raise [NotFound] without summary.json, listing the soak runs to report one by one
      def for(run)
        run.summary || raise(NotFound, without_summary(run))
      end

      # Each configuration's soak summaries, for the charts.
      # @return [Hash{String=>Array<Summary::Soak>}]
      def soaks(run)
        run.soak_runs.transform_values { |runs| runs.map { |soak| SoakSummary.for(soak) } }
      end

      def without_summary(run)
        paths = run.soak_paths
        listing = paths.empty? ? "and none of its soak runs got as far as writing meta.json" : <<~TEXT.chomp
          its soak runs can be reported one by one:
          #{paths.map { |path| "  mallard report #{path}" }.join("\n")}
        TEXT
        "#{run.path} is a comparison without summary.json (it was stopped before it could write one); #{listing}"
      end

      # A comparison that finished with no valid run at all measured nothing: a failed measurement.
      def judged_outcome(outcome, comparison)
        return outcome unless outcome.complete? && comparison.configs.none? { |config| config.repeats.positive? }

        Run::Outcome.failed("no_valid_runs", "no configuration has a valid run: nothing was measured")
      end

      # No verdict from a failed measurement.
      # With how glibc's rows were sized against production (ArenaLimit), where glibc takes part.
      def recommendation(outcome, comparison, production_cpus, cpu_layout)
        return if outcome.status == "failed"

        recommended = Recommendation.call(comparison)
        return recommended unless glibc_compared?(comparison)

        recommended.with(arenas: ArenaLimit.comparison_sizing(production_cpus: production_cpus,
                                                              subject_cpus: cpu_layout&.subject_cpus))
      end

      def glibc_compared?(comparison)
        comparison.configs.any? { |config| config.name.start_with?("glibc") && config.repeats.positive? }
      end

      private_class_method :resolution, :without_summary, :judged_outcome, :recommendation,
                           :glibc_compared?
    end
  end
end
