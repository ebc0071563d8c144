# frozen_string_literal: true

# How well `compare` resolves cost (issue 14): real A/A comparisons (glibc against glibc) on the demo app, with the
# subject and the load on disjoint CPUs (the default) and, once, without (--cpus off); then comparisons where one
# configuration carries a planted CPU cost per request, to see whether compare finds it.
#
#   ruby bench/cost_resolution.rb AA_RUNS PLANTED_RUNS [SECONDS] [REPEATS] [BURN_PCT] [UNPINNED_AA_RUNS]
#
# Each comparison is `mallard compare --allocators glibc,<other> --repeat REPEATS --duration SECONDS`, run in this
# process through the CLI, one after another (never two at once). Reports per comparison the half-widths of the
# memory, req/s, p99 and CPU-per-request intervals against the baseline and what was called different, then the
# medians, the share of A/A comparisons that called any difference, and how often the planted cost was found.
require_relative "support"
require "json"
require "stringio"

module CostBench
  DEMO = File.expand_path("../examples/demo", __dir__)
  BURN = File.expand_path("apps/burn", __dir__)
  FIGURES = { memory: %w[rss_pct rss_pct_ci significant], rps: %w[rps_pct rps_pct_ci rps_significant],
              p99: %w[p99_pct p99_pct_ci p99_significant], cpu: %w[cpu_pct cpu_pct_ci cpu_significant] }.freeze

  # The catalog with one more configuration: glibc plus a fixed CPU burn per request (bench/apps/burn).
  class PlantedCatalog < Mallard::Allocators::Catalog
    def initialize(burn_us:, **catalog)
      @burn_us = burn_us
      super(**catalog)
    end

    private

    def definitions
      super + [{ name: "glibc-burn", malloc: "glibc", settings: { "BENCH_BURN_US" => @burn_us.round.to_s },
                 summary: "glibc, and #{@burn_us.round} µs of CPU burnt per request" }]
    end
  end

  module_function

  def compare(app, configs, seconds:, repeats:, extra: [])
    Dir.mktmpdir("mallard-cost") do |dir|
      out = StringIO.new
      argv = ["compare", app, "--allocators", configs, "--repeat", repeats.to_s, "--duration", seconds.to_s,
              "--threads", "8", "--concurrency", "16", "--json", "--out", File.join(dir, "run"), *extra]
      status = Mallard::CLI.new.run(argv, out: out, err: StringIO.new, env: {})
      raise "compare exited #{status}" unless status.zero?

      JSON.parse(out.string)
    end
  end

  def row(summary)
    versus = summary.fetch("configs").last.fetch("vs_baseline")
    FIGURES.to_h do |figure, (pct, ci, significant)|
      interval = versus[ci]
      [figure, { pct: versus[pct], half: interval && ((interval[1] - interval[0]) / 2), called: versus[significant] }]
    end.merge(cpu_ms: summary.fetch("configs").first.dig("cpu_ms_per_request", "median"),
              repeats: summary.fetch("configs").map { |config| config["repeats"] })
  end

  def print_row(label, row)
    cells = FIGURES.keys.map do |figure|
      cell = row[figure]
      half = cell[:half] ? format("±%.1f", cell[:half]) : "(no interval)"
      format("%s %+.1f %s%s", figure, cell[:pct].to_f, half, cell[:called] ? " DIFFERENT" : "")
    end
    puts format("%-12s %s · cpu %.3f ms/req · repeats %s", label, cells.join(" · "), row[:cpu_ms].to_f,
                row[:repeats].join("/"))
    $stdout.flush
  end

  def median(values) = values.compact.sort[values.compact.size / 2]

  def summarize(label, rows)
    halves = FIGURES.keys.map do |figure|
      half = median(rows.map { |row| row[figure][:half] })
      half ? format("%s ±%.1f", figure, half) : "#{figure} (no interval)"
    end
    puts "#{label}: #{rows.size} comparisons, median half-widths #{halves.join(', ')}"
    called = rows.count { |row| FIGURES.keys.any? { |figure| row[figure][:called] } }
    by_figure = FIGURES.keys.map { |figure| "#{figure} #{rows.count { |row| row[figure][:called] }}" }
    puts "  called any difference: #{called} of #{rows.size} (#{by_figure.join(', ')})"
  end
end

aa_runs, planted_runs, seconds, repeats, burn_pct, unpinned_runs = ARGV.map(&:to_f)
seconds = (seconds || 10).to_i
repeats = (repeats || 3).to_i
burn_pct ||= 10.0
options = { seconds: seconds, repeats: repeats }

unpinned = Array.new((unpinned_runs || 1).to_i) do |index|
  CostBench.row(CostBench.compare(CostBench::DEMO, "glibc,glibc", **options, extra: %w[--cpus off])).tap do |row|
    CostBench.print_row("A/A unpinned #{index + 1}", row)
  end
end
CostBench.summarize("A/A without pinning (before)", unpinned)

aa = Array.new(aa_runs.to_i) do |index|
  CostBench.row(CostBench.compare(CostBench::DEMO, "glibc,glibc", **options)).tap do |row|
    CostBench.print_row("A/A #{index + 1}", row)
  end
end
CostBench.summarize("A/A pinned (after)", aa)

# The burn is a share of the demo app's own CPU per request, as the A/A runs measured it.
burn_us = CostBench.median((aa + unpinned).map { |row| row[:cpu_ms] }) * 1000 * burn_pct / 100
catalog = CostBench::PlantedCatalog.new(burn_us: burn_us, finder: Mallard::Allocators::LibraryFinder.default)
Mallard::Allocators::Catalog.instance_variable_set(:@default, catalog)
planted = Array.new(planted_runs.to_i) do |index|
  CostBench.row(CostBench.compare(CostBench::BURN, "glibc,glibc-burn", **options)).tap do |row|
    CostBench.print_row("planted #{index + 1}", row)
  end
end
found = planted.count { |row| row[:cpu][:called] && row[:cpu][:pct].positive? }
puts format("planted cost of %.0f µs a request (%.0f%% of the A/A median): CPU per request called higher in %d of %d",
            burn_us, burn_pct, found, planted.size)
rps_found = planted.count { |row| row[:rps][:called] && row[:rps][:pct].negative? }
puts "  req/s called lower in #{rps_found} of #{planted.size}"
