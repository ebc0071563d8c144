# frozen_string_literal: true

# Rows of a comparison as its soaks would give them, for the recommendation's tests: three repeats spread ±1%
# around each level (req/s by rps_spread).
module ComparisonRows
  SPREAD = [0.99, 1.0, 1.01].freeze

  def row(name, rss:, rps: 500.0, p99: 40.0, cpu: 2.0, processes: 1, rps_spread: SPREAD, **attributes)
    runs = SPREAD.zip(rps_spread).map do |factor, rps_factor|
      Mallard::Summary::RunFigures.new(steady_rss_kb: rss * factor, steady_pss_kb: rss * factor / 2,
                                       peak_rss_kb: rss * 1.1, rps: rps && (rps * rps_factor), p50_ms: 10.0,
                                       p99_ms: p99 && (p99 * factor), errors: 0, processes: processes, problems: [],
                                       cpu_ms_per_request: cpu && (cpu * factor))
    end
    Mallard::Summary::Row.new(name: name, available: true, verified: true, failed: nil, runs: runs, invalid_runs: [],
                              **attributes)
  end

  # The comparison of these rows against a glibc baseline using 100,000 KiB.
  def comparison(*rows) = Mallard::Analysis::Comparison.call([row("glibc", rss: 100_000), *rows])
end
