# frozen_string_literal: true

module Mallard
  module Report
    # The sentences a comparison's terminal and HTML views share, written once. Plain text, no colour or markup.
    class CompareSentences
      include Formatting

      # @param summary [Summary::Compare]
      def initialize(summary)
        @summary = summary
      end

      # Every sentence this summary gives, for a check that each view shows them all.
      def all = [metric_name, *not_counted, *resolution, *recommendation&.all]

      # The words of the recommendation; nil for a failed comparison, which recommends nothing.
      # @return [RecommendationSentences, nil]
      def recommendation
        return unless @summary.recommendation

        RecommendationSentences.new(@summary.recommendation, unit: Words.unit_of(@summary.target),
                                                             metric: @summary.metric)
      end

      # compare --until-resolved: whether the repeats got every interval narrow enough, and which stayed too wide:
      # the headline, then one line per interval still too wide. Empty without --until-resolved.
      def resolution
        resolution = @summary.resolution
        return [] unless resolution

        repeats = plural(@summary.configs.map { |config| config.repeats.to_i }.max.to_i, "repeat")
        if resolution.resolved
          return ["Resolved: every memory and CPU interval is within ±#{resolution.pct} points after #{repeats}"]
        end

        ["Not resolved to ±#{resolution.pct} points after #{repeats} (the budget, or mallard's limit of rounds, " \
         "was spent):", *Array(resolution.unresolved).map { |line| Text.printable(line) }]
      end

      # The memory figure the table compares.
      def metric_name
        @summary.metric == "steady_pss_kb" ? "Steady PSS (summed over processes)" : "Steady RSS"
      end

      # One line per configuration whose runs were shown but left out of its figures, and why.
      def not_counted
        Array(@summary.configs).select { |config| config.invalid_runs.to_i.positive? }.map do |config|
          why = problems(config.name)
          "#{Text.printable(config.name)}: #{plural(config.invalid_runs, 'run')} not counted" \
            "#{": #{why.join('; ')}" if why.any?}"
        end
      end

      private

      def problems(name)
        row = Array(@summary.rows).find { |candidate| candidate.name == name }
        Array(row&.invalid_runs).flat_map { |run| Array(run.problems) }.uniq.map { |problem| Text.printable(problem) }
      end
    end
  end
end
