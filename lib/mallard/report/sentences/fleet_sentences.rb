# frozen_string_literal: true

module Mallard
  module Report
    # The sentences of a fleet comparison, written once. A fleet has only a terminal view (and --json); its
    # presenter is here so that every kind of run has one, and a future HTML page says the same.
    class FleetSentences
      include Formatting

      # @param summary [Summary::Fleet]
      def initialize(summary)
        @summary = summary
      end

      def all = [interval, too_few, fail_over].compact

      # How the interval was computed and the band a difference must clear.
      def interval
        confidence = @summary.confidence ? format(" (its exact confidence %.1f%%)", @summary.confidence * 100) : ""
        "Interval: #{@summary.methodology}#{confidence}; a difference only beyond #{band(@summary.change&.noise_pct)}."
      end

      # Why there is no verdict, when there is none.
      def too_few
        return unless @summary.change&.ci.nil?

        sizes = Array(@summary.smallest_sizes).map { |n, m| n == m ? "#{n} and #{n}" : "#{n} against #{m}" }
        "No verdict: too few processes to decide (#{@summary.a.processes} in A, #{@summary.b.processes} in B); " \
          "a 95% interval needs at least #{sizes.join(', ')}."
      end

      # Why --fail-over failed: "B uses +23.4% (+20.1 … +26.0) more than A, over --fail-over 5%"; nil unless it did.
      def fail_over
        gate = @summary.fail_over
        return unless gate&.failed
        return gate.reason if gate.worded?

        "B uses #{Words.change(gate.pct, gate.ci)} more than A, over --fail-over #{format('%g', gate.threshold_pct)}%"
      end
    end
  end
end
