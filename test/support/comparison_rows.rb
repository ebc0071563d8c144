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

  # A row of trees of several processes (a master and two workers) whose processes share `shared` KiB.
  def tree_row(name, shared)
    tree = row(name, rss: 200_000, processes: 3)
    tree.with(runs: tree.runs.each_with_index.map do |run, i|
      run.with(steady_shared_kb: shared * SPREAD[i], steady_private_kb: 50_000, main_pss_kb: 30_000,
               worker_pss_kb: 45_000, workers_pss_kb: [44_000, 46_000])
    end)
  end

  # The comparison of these rows against a glibc baseline using 100,000 KiB.
  def comparison(*rows) = Mallard::Analysis::Comparison.call([row("glibc", rss: 100_000), *rows])
end
