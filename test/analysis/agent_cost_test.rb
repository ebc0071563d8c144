# frozen_string_literal: true

require "test_helper"

# What the agent costs the app in a comparison, as data (CompareSentencesTest words it): each configuration's run with
# the agent against the median of its runs without it, one pair per configuration, pooled with an interval.
class AgentCostTest < Minitest::Test
  AgentCost = Mallard::Analysis::AgentCost
  RunFigures = Mallard::Summary::RunFigures
  Row = Mallard::Summary::Row

  def test_each_configurations_pair_against_the_median_of_its_runs_without_it
    cost = AgentCost.call(three_rows, metric: "steady_rss_kb")
    glibc = cost.pairs.first

    assert_equal [3, "glibc"], [cost.configurations, glibc.name]
    assert_in_delta(-11.8, glibc.rps_pct, 0.1, "against the median of the runs without it, 102 req/s")
    assert_in_delta 10.6, glibc.rss_pct, 0.1
  end

  def test_the_pooled_change_is_the_mean_log_ratio_with_its_interval
    cost = AgentCost.call(three_rows, metric: "steady_rss_kb")
    ratios = [90.0 / 102, 180.0 / 200, 95.0 / 100].map { |ratio| Math.log(ratio) }
    low, high = cost.rps_pct_ci

    assert_in_delta((Math.exp(ratios.sum / 3) - 1) * 100, cost.rps_pct, 1e-9)
    assert_operator low, :<, cost.rps_pct
    assert_operator high, :>, cost.rps_pct
    assert_equal 2, cost.rss_pct_ci.size
    assert_nil cost.p99_pct, "no latency figures"
  end

  # Pairs that agree closely are told from nothing; one pair is no interval at all.
  def test_a_consistent_cost_is_a_finding_and_one_pair_is_only_an_estimate
    rows = %w[a b c d].map { |name| row(name, with: [90.0, 0.3, 100_000], without: [[100.0, 0.3, 100_000]]) }
    consistent = AgentCost.call(rows, metric: "steady_rss_kb")

    assert_equal "different", consistent.rps_finding
    single = AgentCost.call(rows.first(1), metric: "steady_rss_kb")

    assert_nil single.rps_pct_ci
    assert_equal "no_interval", single.rps_finding
  end

  def test_the_memory_figure_is_the_comparisons_metric
    rows = [row("glibc", with: [90.0, 0.3, 100_000], without: [[100.0, 0.3, 100_000]], pss: [50_000, 40_000])]

    assert_in_delta 25.0, AgentCost.call(rows, metric: "steady_pss_kb").rss_pct, 1e-9
  end

  # A configuration without a counted run with the agent gives no pair; with none at all the cost is unmeasured, why
  # kept, or absent where no run was meant to carry it.
  def test_no_pair_keeps_why_or_says_nothing
    rows = [Row.new(name: "glibc", runs: [RunFigures.new(rps: 100.0)],
                    instrumented_runs: [RunFigures.new(rps: 90.0, problems: ["served nothing"])])]

    assert_equal "the machine was busy", AgentCost.call(rows, metric: "steady_rss_kb", lost: "the machine was busy")
                                                  .unmeasured
    assert_nil AgentCost.call(rows, metric: "steady_rss_kb")
  end

  private

  def three_rows
    [row("glibc", with: [90.0, 0.33, 110_000], without: [[100.0, 0.30, 100_000], [104.0, 0.29, 99_000]]),
     row("jemalloc", with: [180.0, 0.16, 88_000], without: [[200.0, 0.15, 80_000]]),
     row("mimalloc", with: [95.0, 0.30, 60_000], without: [[100.0, 0.28, 57_000]])]
  end

  def row(name, with:, without:, pss: [nil, nil])
    figures = lambda do |(rps, cpu, rss), pss_kb|
      RunFigures.new(rps: rps, cpu_ms_per_request: cpu, steady_rss_kb: rss, steady_pss_kb: pss_kb)
    end
    Row.new(name: name, instrumented_runs: [figures.call(with, pss[0])],
            runs: without.map { |run| figures.call(run, pss[1]) })
  end
end
