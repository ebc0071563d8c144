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
      def all = [metric_name, *not_counted]

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
