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
        return nothing("no figures to compare") unless loggable?(after) && loggable?(before)

        b = logs(after)
        a = logs(before)
        of_logs(Statistics.mean(b) - Statistics.mean(a), Statistics.welch_ci(b, a, level: LEVEL), noise_pct,
                missing: missing_interval(after, before))
      end

      # The same rule for paired figures: B and A measured side by side, pair by pair (compare's runs with the agent
      # against its runs without it, one pair per configuration). Each pair's own log ratio cancels what the pair shares
      # (the configuration's level), so the change is exp(mean of the log ratios) − 1 and its interval Student's t on
      # them; one pair has no interval.
      # @param pairs [Array(Numeric, Numeric)] [B, A] per pair; a pair without two positive figures is left out
      # @return [Summary::Change]
      def paired(pairs, noise_pct: Significance::NOISE_PCT)
        ratios = pairs.select { |pair| loggable?(pair) }.map { |after, before| Math.log(after) - Math.log(before) }
        return nothing("no pairs to compare") if ratios.empty?

        of_logs(Statistics.mean(ratios), Statistics.mean_ci(ratios, level: LEVEL), noise_pct,
                missing: "no interval: one pair")
      end

      def nothing(note) = Summary::Change.new(significant: false, finding: "no_interval", note: note)

      # A change from its mean log ratio and that mean's interval (nil: missing says why there is none).
      def of_logs(log_ratio, log_interval, noise_pct, missing:)
        interval = log_interval&.map { |bound| percent(bound) }
        Summary::Change.new(pct: percent(log_ratio), ci: interval,
                            significant: Significance.significant?(interval, noise_pct),
                            finding: finding(interval, noise_pct), noise_pct: noise_pct.round(2),
                            note: interval ? nil : missing)
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

      private_class_method :nothing, :of_logs, :missing_interval, :loggable?, :logs, :percent
    end
  end
end
