# frozen_string_literal: true

require_relative "statistics"
require_relative "significance"

module Mallard
  module Analysis
    # Compares memory configurations, each run a few times (typically 3, sometimes 2-5), against a baseline.
    #
    # Changes are ratios (jemalloc uses 0.82 × glibc's memory), and run-to-run noise is roughly proportional to
    # the level, so every figure is worked on log values: the % change is exp(mean log a - mean log b) - 1, and
    # its 95% interval is Welch's t interval for that difference of means (unequal variances, Welch-Satterthwaite
    # df), mapped back the same way. `significant` means the interval lies wholly beyond ±1% (Significance).
    #
    # Why not the percentile bootstrap: with 3 repeats per arm a resample can only reshuffle the 3 values it
    # was shown, so its interval reflects the spread of those 3 (and has at most 10 distinct means to draw),
    # never the variance of the repeats it was not shown. Its intervals come out far too narrow: in an A/A
    # simulation (3 vs 3, 2-5% noise) about 1 in 5 comparisons of identical configurations were "different".
    # Student t pays for the few repeats with a wide quantile (4.3 at 2 df), which keeps that rate near 5%.
    #
    # A config's own `ci` is the t interval of the mean of its logs, mapped back: an interval for the geometric
    # mean, which estimates the median of log-normal noise. The sample median of 3 values has no usable
    # interval of its own, and for 2-4 repeats this interval always contains the sample median reported
    # beside it. nil below 2 repeats, as is every interval with a single repeat in either arm.
    module Comparison
      LEVEL = 0.95
      PSS_METRIC = "steady_pss_kb"
      RSS_METRIC = "steady_rss_kb"
      NO_CHANGE = { pct: nil, ci: nil, significant: false }.freeze

      module_function

      # @param rows [Array<Hash>] one per configuration, string keys as loaded from JSON
      # @return [Hash] { baseline:, metric:, configs: [...] }
      def call(rows, baseline: "glibc")
        metric = memory_metric(rows)
        reference = rows.find { |row| row["name"] == baseline }
        # A baseline that failed part-way is no reference: nothing is compared with it.
        reference_series = series(runs_of(reference), metric) if reference && !reference["failed"]
        configs = rows.map do |row|
          config(row, metric, row.equal?(reference) ? nil : reference_series)
        end
        { baseline: baseline, metric: metric, configs: configs }
      end

      # RSS counts pages shared between a preforking server's workers once per worker; PSS divides them, so
      # with several processes only PSS adds up to what the machine spends.
      def memory_metric(rows)
        several = rows.any? { |row| runs_of(row).any? { |run| run["processes"].to_i > 1 } }
        several ? PSS_METRIC : RSS_METRIC
      end

      def config(row, metric, reference_series)
        runs = runs_of(row)
        own = series(runs, metric)
        { name: row["name"], available: row["available"], verified: row["verified"], failed: row["failed"],
          repeats: runs.size,
          steady_rss_kb: { **summary(own[:memory]), values: own[:memory] },
          peak_rss_kb: { median: Statistics.median(column(runs, "peak_rss_kb")) },
          rps: summary(own[:rps]),
          latency_ms: { p50: { median: Statistics.median(column(runs, "p50_ms")) }, p99: summary(own[:p99]) },
          errors: column(runs, "errors").then { |errors| errors.sum unless errors.empty? },
          vs_baseline: runs.empty? || reference_series.nil? ? nil : versus(own, reference_series) }
      end

      def versus(own, reference)
        memory, rps, p99 = %i[memory rps p99].map { |key| change(own[key], reference[key]) }
        { rss_pct: memory[:pct], rss_pct_ci: memory[:ci], significant: memory[:significant],
          rps_pct: rps[:pct], rps_pct_ci: rps[:ci], rps_significant: rps[:significant],
          p99_pct: p99[:pct], p99_pct_ci: p99[:ci], p99_significant: p99[:significant] }
      end

      # Zero spread in both arms gives Welch's interval as the bare point, so identical values are "no change"
      # and distinct constant values are significant once they differ by more than the noise band, without
      # dividing by a zero standard error.
      def change(values, reference)
        logs = logs(values)
        reference_logs = logs(reference)
        return NO_CHANGE unless logs && reference_logs

        interval = Statistics.welch_ci(logs, reference_logs, level: LEVEL)&.map { |bound| percent(bound) }
        { pct: percent(Statistics.mean(logs) - Statistics.mean(reference_logs)), ci: interval,
          significant: Significance.significant?(interval) }
      end

      def summary(values)
        logs = logs(values)
        { median: Statistics.median(values),
          ci: logs && Statistics.mean_ci(logs, level: LEVEL)&.map { |bound| Math.exp(bound) } }
      end

      def series(runs, metric)
        { memory: column(runs, metric), rps: column(runs, "rps"), p99: column(runs, "p99_ms") }
      end

      # Missing figures (a run without load has no rps) are left out rather than counted as zero.
      def column(runs, key)
        runs.map { |run| run[key] }.grep(Numeric)
      end

      def runs_of(row)
        (row && row["runs"]) || []
      end

      # nil when a ratio is meaningless: no values, or a zero (no requests served) among them.
      def logs(values)
        values.map { |value| Math.log(value) } if values.any? && values.all?(&:positive?)
      end

      def percent(log_ratio)
        (Math.exp(log_ratio) - 1) * 100
      end

      private_class_method :memory_metric, :config, :versus, :change, :summary, :series, :column, :runs_of, :logs,
                           :percent
    end
  end
end
