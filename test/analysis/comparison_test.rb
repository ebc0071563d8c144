# frozen_string_literal: true

require "test_helper"
require "mallard/analysis/comparison"

class ComparisonTest < Minitest::Test
  Comparison = Mallard::Analysis::Comparison
  Statistics = Mallard::Analysis::Statistics

  SIMULATIONS = 1000

  def run_with(rss, rps: 500.0, p99: 40.0, **extra)
    Mallard::Summary::RunFigures.new(steady_rss_kb: rss, steady_pss_kb: rss * 0.6, peak_rss_kb: rss * 1.2, rps: rps,
                                     p50_ms: p99 / 4, p99_ms: p99, errors: 0, processes: 1, problems: [], **extra)
  end

  def row(name, runs, **attributes)
    Mallard::Summary::Row.new(name: name, available: true, verified: true, failed: nil, runs: runs, invalid_runs: [],
                              **attributes)
  end

  def entry(comparison, name)
    comparison[:configs].find { |config| config.name == name }
  end

  # ParetoFront: one beats another when it is better on some resolved figure and worse on none; each one beaten
  # names who beats it and where, with that pair's change.
  def test_the_front_and_who_beats_the_rest
    comparison = Comparison.call([row("glibc", [run_with(100_000), run_with(101_000), run_with(99_000)]),
                                  row("faster", [100_000, 101_000, 99_000].map { |kb| run_with(kb, rps: kb / 150.0) }),
                                  row("smaller", [80_000, 81_000, 79_000].map { |kb| run_with(kb, rps: kb / 120.0) })])

    assert_equal ["smaller"], comparison[:front]
    assert_equal({ "glibc" => "faster", "faster" => "smaller" },
                 comparison[:beaten].transform_values { |found| found[:by] })
    glibc = comparison[:beaten]["glibc"][:on]

    assert_equal [:rps], glibc.keys
    assert_in_delta 33.3, glibc[:rps].pct, 0.1
  end

  def three_and_three
    Comparison.call([row("glibc", [run_with(100_000), run_with(102_000), run_with(98_000)]),
                     row("jemalloc", [run_with(80_000), run_with(81_000), run_with(79_000)])])
  end

  def test_reports_every_configuration_against_the_baseline_but_itself
    comparison = three_and_three
    jemalloc = entry(comparison, "jemalloc")

    assert_equal "glibc", comparison[:baseline]
    assert_equal "steady_rss_kb", comparison[:metric]
    assert_nil entry(comparison, "glibc").vs_baseline
    assert_in_delta(-20, jemalloc.vs_baseline.rss_pct, 0.1)
    assert jemalloc.vs_baseline.significant
  end

  def test_summarises_each_configuration_over_its_repeats
    jemalloc = entry(three_and_three, "jemalloc")

    assert_equal 3, jemalloc.repeats
    assert_equal [80_000, 81_000, 79_000], jemalloc.steady_rss_kb.values
    assert_in_delta 80_000, jemalloc.steady_rss_kb.median
    assert_in_delta 96_000, jemalloc.peak_rss_kb.median
    assert_in_delta 500, jemalloc.rps.median
    assert_in_delta 10, jemalloc.latency_ms.p50.median
    assert_in_delta 40, jemalloc.latency_ms.p99.median
    assert_equal 0, jemalloc.errors
  end

  # Logs 1, 2, 3 against 4, 5, 6: R's t.test(1:3, 4:6) gives -3 with the interval -5.266958 … -0.733042.
  def test_change_is_welch_on_the_logs_mapped_back_to_percent
    comparison = Comparison.call([row("glibc", [4, 5, 6].map { |power| run_with(Math.exp(power)) }),
                                  row("mimalloc", [1, 2, 3].map { |power| run_with(Math.exp(power)) })])
    versus = entry(comparison, "mimalloc").vs_baseline

    assert_in_delta percent(-3), versus.rss_pct, 1e-9
    assert_in_delta percent(-5.266958), versus.rss_pct_ci[0], 1e-4
    assert_in_delta percent(-0.733042), versus.rss_pct_ci[1], 1e-4
    assert versus.significant
  end

  def test_throughput_and_p99_are_compared_the_same_way
    comparison = Comparison.call([row("glibc", [run_with(1, rps: 500, p99: 40), run_with(1, rps: 505, p99: 41),
                                                run_with(1, rps: 495, p99: 39)]),
                                  row("tcmalloc", [run_with(1, rps: 400, p99: 60), run_with(1, rps: 402, p99: 61),
                                                   run_with(1, rps: 398, p99: 59)])])
    versus = entry(comparison, "tcmalloc").vs_baseline

    assert_in_delta(-20, versus.rps_pct, 0.1)
    assert versus.rps_significant
    assert_operator versus.rps_pct_ci[1], :<, 0
    assert_in_delta 50, versus.p99_pct, 0.1
    assert versus.p99_significant
    assert_operator versus.p99_pct_ci[0], :>, 0
    refute versus.significant, "the same memory in both"
  end

  def test_pss_is_the_metric_once_any_run_has_several_processes
    comparison = Comparison.call([row("glibc", [run_with(100_000, processes: 3)]),
                                  row("jemalloc", [run_with(50_000)])])

    assert_equal "steady_pss_kb", comparison[:metric]
    assert_equal [30_000.0], entry(comparison, "jemalloc").steady_rss_kb.values
  end

  def test_a_single_repeat_has_a_change_but_no_interval
    comparison = Comparison.call([row("glibc", [run_with(100_000), run_with(101_000)]),
                                  row("jemalloc", [run_with(50_000)])])
    jemalloc = entry(comparison, "jemalloc")

    assert_in_delta(-50, jemalloc.vs_baseline.rss_pct, 0.5)
    assert_nil jemalloc.vs_baseline.rss_pct_ci
    refute jemalloc.vs_baseline.significant
    assert_equal "no_interval", jemalloc.vs_baseline.rss_finding
    assert_equal "no interval: a single run in B", jemalloc.vs_baseline.note
    assert_nil jemalloc.steady_rss_kb.ci
    assert_nil jemalloc.rps.ci
  end

  def test_identical_constant_values_are_no_change_and_distinct_ones_are
    runs = Array.new(3) { run_with(100_000) }
    comparison = Comparison.call([row("glibc", runs), row("same", runs),
                                  row("less", Array.new(3) { run_with(90_000) })])

    same = entry(comparison, "same").vs_baseline
    assert_in_delta 0, same.rss_pct
    assert_equal [0.0, 0.0], same.rss_pct_ci
    refute same.significant
    assert_equal "no_difference", same.rss_finding
    less = entry(comparison, "less").vs_baseline
    less.rss_pct_ci.each { |bound| assert_in_delta(-10, bound, 1e-9) }
    assert less.significant
  end

  def test_rows_without_runs_are_listed_but_not_compared
    comparison = Comparison.call([row("glibc", [run_with(1), run_with(2)]), row("tcmalloc", [], available: false)])
    tcmalloc = entry(comparison, "tcmalloc")

    assert_equal 0, tcmalloc.repeats
    assert_nil tcmalloc.vs_baseline
    assert_nil tcmalloc.steady_rss_kb.median
    assert_nil tcmalloc.errors
    refute tcmalloc.available
  end

  def test_nothing_is_compared_with_a_failed_or_missing_baseline
    failed = Comparison.call([row("glibc", [run_with(1), run_with(2)], failed: "subject died"),
                              row("jemalloc", [run_with(1), run_with(2)])])

    assert_nil entry(failed, "jemalloc").vs_baseline
    assert_nil entry(Comparison.call([row("jemalloc", [run_with(1)])]), "jemalloc").vs_baseline
  end

  def test_missing_or_zero_throughput_has_no_ratio
    comparison = Comparison.call([row("glibc", [run_with(1, rps: nil), run_with(1, rps: nil)]),
                                  row("jemalloc", [run_with(1, rps: 0.0), run_with(1, rps: 5.0)])])
    jemalloc = entry(comparison, "jemalloc")

    assert_nil jemalloc.vs_baseline.rps_pct
    refute jemalloc.vs_baseline.rps_significant
    assert_nil jemalloc.rps.ci
    assert_in_delta 2.5, jemalloc.rps.median
  end

  def test_a_configuration_interval_brackets_its_median_on_the_log_scale
    comparison = Comparison.call([row("glibc", [run_with(90_000), run_with(100_000), run_with(115_000)])])
    memory = entry(comparison, "glibc").steady_rss_kb
    logs = [90_000, 100_000, 115_000].map { |value| Math.log(value) }

    assert_equal Statistics.mean_ci(logs).map { |bound| Math.exp(bound) }, memory.ci
    assert_operator memory.ci[0], :<, memory.median
    assert_operator memory.ci[1], :>, memory.median
  end

  def test_errors_are_totalled_over_the_repeats
    comparison = Comparison.call([row("glibc", [run_with(1, errors: 2), run_with(1, errors: 3)])])

    assert_equal 5, entry(comparison, "glibc").errors
  end

  # YJIT's memory is read inside the app: from the run with the agent where the counted runs had none.
  def test_yjit_memory_is_the_median_of_the_runs_that_explain_it
    with_agent = [run_with(1, yjit_code_kb: 900, yjit_metadata_kb: 3000), run_with(1, yjit_code_kb: 1100)]
    comparison = Comparison.call([row("glibc/yjit-16", [run_with(1), run_with(1)], instrumented_runs: with_agent),
                                  row("glibc/yjit-off", [run_with(1)])], baseline: "glibc/yjit-16")

    config = entry(comparison, "glibc/yjit-16")

    assert_equal [1000, 3000], [config.yjit_code_kb, config.yjit_metadata_kb]
    assert_nil entry(comparison, "glibc/yjit-off").yjit_code_kb
  end

  # Two identical configurations, 3 repeats each, 2-5% log-normal noise: Welch's 95% interval should call
  # them different about 5% of the time. The percentile bootstrap does so about 20% of the time.
  def test_identical_configurations_are_rarely_called_different
    rate = significance_rate(ratio: 1.0) { |random| 0.02 + (0.03 * random.rand) }

    assert_operator rate, :<=, 0.07
  end

  def test_a_real_20_percent_difference_is_almost_always_found
    rate = significance_rate(ratio: 0.8) { 0.03 }

    assert_operator rate, :>=, 0.9
  end

  private

  def significance_rate(ratio:, repeats: 3)
    found = SIMULATIONS.times.count do |seed|
      random = Random.new(seed)
      noise = yield(random)
      sample = ->(level) { Array.new(repeats) { run_with(level * Math.exp(noise * normal(random))) } }
      comparison = Comparison.call([row("glibc", sample.call(500_000.0)), row("other", sample.call(500_000.0 * ratio))])
      entry(comparison, "other").vs_baseline.significant
    end
    found.fdiv(SIMULATIONS)
  end

  def percent(log_ratio)
    (Math.exp(log_ratio) - 1) * 100
  end

  # Box-Muller: a standard normal draw from two uniform ones.
  def normal(random)
    Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)
  end
end
