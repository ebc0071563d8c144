# frozen_string_literal: true

require_relative "statistics"
require_relative "significance"

module Mallard
  module Analysis
    # The one change rule: how figures B moved against figures A, as a ratio worked on logs. Run-to-run noise is
    # roughly proportional to the level, so the change is exp(mean log B − mean log A) − 1 and its 95% interval
    # is Welch's t interval for that difference of means (unequal variances, Welch–Satterthwaite df), mapped
    # back the same way; it counts only when the whole interval lies beyond ±1% (Significance). Used by
    # compare (repeats against the baseline's) and diff (repeats, or a soak's batch means).
    #
    # Why not the percentile bootstrap: with 3 repeats per arm a resample can only reshuffle the 3 values it
    # was shown, never the variance of the repeats it was not shown; in an A/A simulation (3 vs 3, 2–5% noise)
    # about 1 in 5 comparisons of identical configurations came out "different" (bench/aa_simulation.rb).
    # Student t pays for the few repeats with a wide quantile (4.3 at 2 df).
    module Change
      LEVEL = 0.95
      SINGLE_RUN = "no interval: one run each"

      module_function

      # @param after [Array<Numeric>] B's figures
      # @param before [Array<Numeric>] A's figures (the baseline)
      # @param noise_pct [Float] the band the interval must clear (Significance)
      # @return [Summary::Change] pct nil when either side has no positive figures (nothing served: no ratio)
      def call(after, before, noise_pct: Significance::NOISE_PCT)
        unless loggable?(after) && loggable?(before)
          return Summary::Change.new(significant: false, finding: "no_interval", note: "no figures to compare")
        end

        b = logs(after)
        a = logs(before)
        interval = Statistics.welch_ci(b, a, level: LEVEL)&.map { |bound| percent(bound) }
        Summary::Change.new(pct: percent(Statistics.mean(b) - Statistics.mean(a)), ci: interval,
                            significant: Significance.significant?(interval, noise_pct),
                            finding: finding(interval, noise_pct), noise_pct: noise_pct.round(2),
                            note: interval ? nil : missing_interval(after, before))
      end

      # What an interval of a % change says in one word: "different", "within_noise", "no_difference", or
      # "no_interval" without one.
      def finding(interval, noise_pct)
        return "no_interval" if interval.nil?
        return "different" if Significance.significant?(interval, noise_pct)

        Significance.within_noise?(interval, noise_pct) ? "within_noise" : "no_difference"
      end

      # The interval of one side's own level: the t interval of the mean of its logs, mapped back (an interval
      # for the geometric mean, which estimates the median of log-normal noise); nil below 2 figures.
      def level_ci(values)
        return unless loggable?(values)

        Statistics.mean_ci(logs(values), level: LEVEL)&.map { |bound| Math.exp(bound) }
      end

      def missing_interval(after, before)
        return SINGLE_RUN if after.size < 2 && before.size < 2

        "no interval: a single run in #{after.size < 2 ? 'B' : 'A'}"
      end

      def loggable?(values)
        values.any? && values.all? { |value| value.is_a?(Numeric) && value.positive? }
      end

      def logs(values) = values.map { |value| Math.log(value) }

      def percent(log_ratio) = (Math.exp(log_ratio) - 1) * 100

      private_class_method :missing_interval, :loggable?, :logs, :percent
    end
  end
end
