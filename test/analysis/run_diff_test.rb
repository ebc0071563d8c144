# frozen_string_literal: true

require "test_helper"
require "json"

class RunDiffTest < Minitest::Test
  RunDiff = Mallard::Analysis::RunDiff
  Summary = Mallard::Summary
  SINGLE_RUN = Mallard::Analysis::Change::SINGLE_RUN
  STORED_COMPARE = File.expand_path("../fixtures/runs/compare/summary.json", __dir__)

  SIMULATIONS = 1000

  # Memory around level with AR(1) noise on the log scale (multiplicative, as heaps wander): each sample keeps
  # phi of the last one's deviation, so consecutive samples are correlated, as real ones are.
  def ar1(size, phi:, random:, level: 30_000.0, spread: 0.01)
    deviation = normal(random) * spread / Math.sqrt(1 - (phi * phi))
    Array.new(size) do
      deviation = (phi * deviation) + (spread * normal(random))
      level * Math.exp(deviation)
    end
  end

  def normal(random)
    Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)
  end

  def soak(steady, rps: 500.0, p99: 40.0, peak: nil, processes: 1, headroom_kb: nil)
    memory = Summary::Memory.new(steady_rss_kb: Mallard::Analysis::Statistics.median(steady),
                                 peak_rss_kb: peak || steady.max, processes: processes)
    load = Summary::Load.new(rps: rps, latency_ms: Summary::Percentiles.new(p99: p99))
    { summary: Summary::Soak.new(kind: "soak", memory: memory, load: load, headroom_kb: headroom_kb), steady: steady }
  end

  def steady_row(before, after)
    RunDiff.soaks(soak(before), soak(after), metric: "steady_rss_kb")[:rows].first
  end

  def test_two_runs_from_the_same_distribution_show_no_significant_change
    random = Random.new(11)
    row = steady_row(ar1(60, phi: 0.5, random: random), ar1(60, phi: 0.5, random: random))

    refute row[:significant], row.inspect
    assert_operator row[:ci][0], :<, 0
    assert_operator row[:ci][1], :>, 0
    assert_equal [10, 10], row[:batches]
  end

  # Two processes of a 27 MB app settled 700 KB apart with tight batch means: a real gap between these runs, and
  # inside the 1 MiB that two runs of one app drift apart (A/A soaks of the stable app did so).
  def test_a_gap_under_a_mebibyte_between_single_soaks_is_not_a_difference
    random = Random.new(13)
    row = steady_row(ar1(60, phi: 0.5, random: random, level: 28_340.0, spread: 0.002),
                     ar1(60, phi: 0.5, random: random, level: 27_620.0, spread: 0.002))

    refute row[:significant], row.inspect
    assert_equal "within_noise", row[:finding]
    assert_in_delta Mallard::Analysis::Significance::RUN_TO_RUN_PCT, row[:noise_pct], 0.05
    assert_in_delta 100.0 * 1024 / 4_000, steady_row([4_000.0] * 30, [4_100.0] * 30)[:noise_pct], 0.05,
                    "a small app's band is the memory floor's share"
  end

  # Issue 20: two back-to-back 10 s soaks of one 20-thread job worker settled 5.6% apart, −8.6 … −2.5 within the
  # runs. One run each cannot see run-to-run variation, so that is no difference; the row says why.
  def test_a_shift_that_runs_of_one_app_show_is_not_called_from_one_run_each
    random = Random.new(14)
    row = steady_row(ar1(20, phi: 0.3, random: random, level: 87_550.0, spread: 0.01),
                     ar1(20, phi: 0.3, random: random, level: 82_650.0, spread: 0.01))

    assert_operator row[:ci][1], :<, -1, "a real gap between these two runs"
    refute row[:significant], row.inspect
    assert_match(/one run each: .*only a change beyond ±10%/, row[:note])
  end

  # bench/diff_aa.rb: pairs of soaks of a fragmenting five-thread app settled up to 36.6% apart. What differs between
  # two runs of one app is what glibc keeps of the memory it freed, which the ledger reads: a 25% shift in runs whose
  # allocator held a third of the memory free is no difference from one run each.
  def test_a_shift_within_what_the_allocator_held_free_is_not_called
    random = Random.new(15)
    before = soak(ar1(20, phi: 0.3, random: random, level: 300_000.0, spread: 0.01), headroom_kb: 60_000)
    after = soak(ar1(20, phi: 0.3, random: random, level: 375_000.0, spread: 0.01), headroom_kb: 110_000)
    row = RunDiff.soaks(before, after, metric: "steady_rss_kb")[:rows].first

    assert_operator row[:ci][0], :>, 20, "a real gap between these two runs"
    refute row[:significant], row.inspect
    assert_in_delta 100.0 * 110_000 / 300_000, row[:noise_pct], 0.5
    assert_match(/an allocator held up to 107\.4 MiB free/, row[:note])
  end

  # A CI run of report_diff_test: a leak took steady RSS from 26.9 to 114.1 MiB, and the leaking run's allocator held
  # 29.2 MiB free. Weighed against the smaller run's level alone that was a ±111% band and the rise "within noise";
  # held free it can account for 29 MiB over the 85 MiB the leaking run owned, ±36%, and a fourfold rise counts.
  def test_what_a_leaking_run_holds_free_does_not_hide_its_leak
    random = Random.new(16)
    before = soak(ar1(9, phi: 0.3, random: random, level: 26_950.0, spread: 0.3), headroom_kb: nil)
    leaking = Array.new(28) { |i| 40_000.0 + (5_500 * i) + random.rand(-20_000..20_000) }
    row = RunDiff.soaks(before, soak(leaking, headroom_kb: 29_900), metric: "steady_rss_kb")[:rows].first

    assert_operator row[:ci][0], :<, 100.0 * 29_900 / 26_950, "the old band hid this rise"
    assert_in_delta 100.0 * 29_900 / (row[:b] - 29_900), row[:noise_pct], 0.01
    assert row[:significant], row.inspect
  end

  def test_a_twenty_percent_shift_is_significant_and_measured_as_such
    random = Random.new(12)
    row = steady_row(ar1(60, phi: 0.5, random: random), ar1(60, phi: 0.5, random: random, level: 36_000.0))

    assert row[:significant], row.inspect
    assert row[:worse]
    assert_in_delta 20, row[:pct], 2
    assert_operator row[:ci][0], :>, 15
    assert_operator row[:ci][1], :<, 25
  end

  # Identical runs should be called different about 5% of the time. Batches of 12 samples at AR 0.5 are long
  # against the correlation; shorter batches or slower wander raise the rate (see RunDiff's notes).
  def test_identical_autocorrelated_runs_are_rarely_called_different
    random = Random.new(2024)
    different = SIMULATIONS.times.count do
      steady_row(ar1(120, phi: 0.5, random: random), ar1(120, phi: 0.5, random: random))[:significant]
    end

    assert_operator different.fdiv(SIMULATIONS), :<=, 0.07, "A/A called different #{different} times in #{SIMULATIONS}"
  end

  # Precise enough to tell a 0.5% rise from zero, and still no difference: it lies inside the ±1% band.
  def test_a_precisely_measured_half_percent_shift_is_within_noise
    random = Random.new(7)
    before = ar1(120, phi: 0.5, random: random, spread: 0.0005)
    row = steady_row(before, before.map { |value| value * 1.005 })

    assert_operator row[:ci][0], :>, 0
    refute row[:significant], row.inspect
  end

  def test_batches_are_a_third_of_the_samples_up_to_ten
    assert_equal 2, RunDiff.batch_means(Array.new(7, 1.0)).size
    assert_equal 5, RunDiff.batch_means(Array.new(16, 1.0)).size
    assert_equal 10, RunDiff.batch_means(Array.new(300, 1.0)).size
    assert_empty RunDiff.batch_means(Array.new(5, 1.0))
    assert_equal [2.0, 4.0], RunDiff.batch_means([1, 2, 3, 4, 3, 5])
  end

  def test_too_few_steady_samples_give_the_change_without_an_interval
    row = steady_row([100.0] * 5, [110.0] * 30)

    assert_in_delta 10, row[:pct], 1e-9
    assert_nil row[:ci]
    refute row[:significant]
    assert_equal "no interval: fewer than 6 steady-state samples in A", row[:note]
  end

  def test_single_figures_are_compared_without_an_interval
    row = RunDiff.soaks(soak([100.0] * 30, rps: 500.0), soak([100.0] * 30, rps: 400.0), metric: "rps")[:rows].first

    assert_in_delta(-20, row[:pct], 1e-9)
    assert_nil row[:ci]
    refute row[:significant]
    assert row[:worse], "fewer requests per second is worse"
    assert_equal SINGLE_RUN, row[:note]
  end

  def test_comparisons_are_diffed_per_configuration_in_both
    before = compare_summary({ "glibc" => [100_000, 102_000, 98_000], "jemalloc" => [80_000, 81_000, 79_000],
                               "tcmalloc" => [90_000, 91_000, 89_000] })
    after = compare_summary({ "glibc" => [100_500, 101_000, 99_000], "jemalloc" => [96_000, 97_000, 95_000],
                              "mimalloc" => [85_000, 86_000, 84_000] })
    result = RunDiff.compares(before, after, metric: "steady_rss_kb")
    glibc, jemalloc = result[:rows]

    assert_equal(%w[glibc jemalloc], result[:rows].map { |row| row[:name] })
    refute glibc[:significant], glibc.inspect
    assert jemalloc[:significant], jemalloc.inspect
    assert_in_delta 20, jemalloc[:pct], 0.5
    assert_equal 96_000, jemalloc[:b]
    assert_equal [["tcmalloc"], ["mimalloc"]], [result[:only_in_a], result[:only_in_b]]
  end

  def test_a_configuration_run_once_on_each_side_has_no_interval
    result = RunDiff.compares(compare_summary({ "glibc" => [100_000] }), compare_summary({ "glibc" => [150_000] }),
                              metric: "steady_rss_kb")

    assert_equal SINGLE_RUN, result[:rows].first[:note]
    refute result[:rows].first[:significant]
  end

  # A stored comparison against itself: every configuration in both, and nothing changed.
  def test_a_stored_comparison_diffed_with_itself_changes_nothing
    stored = Summary::Compare.from_h(JSON.parse(File.read(STORED_COMPARE)))
    result = RunDiff.compares(stored, stored, metric: RunDiff.default_compare_metric(stored, stored))

    assert_equal(stored.rows.map(&:name), result[:rows].map { |row| row[:name] })
    result[:rows].each do |row|
      assert_in_delta 0, row[:pct], 1e-9
      refute row[:significant], row.inspect
      refute row[:worse]
      assert_equal row[:a], row[:b]
    end
    assert_equal [[], []], [result[:only_in_a], result[:only_in_b]]
    refute RunDiff.fail_over(result, 0)[:failed]
  end

  def test_fail_over_needs_the_whole_interval_worse_than_the_threshold
    shifted = scaled_diff(1.2)

    gate = RunDiff.fail_over(shifted, 5)
    assert gate[:failed]
    assert_equal ["steady_rss_kb", 0, 5], gate.values_at(:row, :more, :threshold_pct)
    assert_in_delta 20.0, gate[:pct], 0.05
    assert_operator gate[:ci].first, :>, 5
    refute RunDiff.fail_over(shifted, 25)[:failed], "a significant rise within the threshold passes"
    refute RunDiff.fail_over(shifted, shifted[:rows].first[:ci].first + 0.1)[:failed],
           "a threshold inside the interval is not exceeded with confidence"
  end

  def test_less_memory_never_fails
    refute RunDiff.fail_over(scaled_diff(0.8), 5)[:failed]
  end

  def scaled_diff(factor)
    base = ar1(60, phi: 0.5, random: Random.new(13))
    RunDiff.soaks(soak(base), soak(base.map { |v| v * factor }), metric: "steady_rss_kb")
  end

  def test_fail_over_on_throughput_fails_when_it_falls
    before = compare_summary({ "glibc" => [100_000] * 3 }, rps: [500.0, 510.0, 490.0])
    slower = compare_summary({ "glibc" => [100_000] * 3 }, rps: [400.0, 410.0, 390.0])
    faster = compare_summary({ "glibc" => [100_000] * 3 }, rps: [600.0, 610.0, 590.0])

    gate = RunDiff.fail_over(RunDiff.compares(before, slower, metric: "rps"), 5)
    assert gate[:failed]
    assert_equal "glibc", gate[:row]
    assert_in_delta(-20.0, gate[:pct], 0.05)
    assert_operator gate[:ci].last, :<, -5
    refute RunDiff.fail_over(RunDiff.compares(before, faster, metric: "rps"), 5)[:failed]
  end

  def test_a_change_without_an_interval_never_fails
    result = RunDiff.soaks(soak([100.0] * 30, p99: 40.0), soak([100.0] * 30, p99: 400.0), metric: "p99_ms")

    refute RunDiff.fail_over(result, 5)[:failed]
  end

  def test_steady_memory_defaults_to_summed_pss_with_several_processes
    one = soak([1.0])[:summary]
    workers = soak([1.0], processes: 3)[:summary]

    assert_equal "steady_rss_kb", RunDiff.default_soak_metric(one, one)
    assert_equal "steady_pss_kb", RunDiff.default_soak_metric(one, workers)
    assert_equal "steady_pss_kb",
                 RunDiff.default_compare_metric(Summary::Compare.new(metric: "steady_pss_kb"), Summary::Compare.new)
  end

  # Each ledger part both runs read gets a row of its own: which part moved; no interval, so never a failure.
  def test_soaks_with_ledgers_show_each_part_and_never_fail_on_one
    before, after = [40_960, 10_240].map { |held| soak_with_ledger(held) }
    result = RunDiff.soaks(after, before, metric: "steady_rss_kb")
    row = result[:rows].last

    assert_equal 2, result[:rows].size, "a part unread in either run has no row"
    assert_equal ["ledger: malloc held free", 10_240, 40_960, 300.0], [row[:name], row[:a], row[:b], row[:pct].round(1)]
    assert_nil row[:ci]
    refute RunDiff.fail_over(result, 5)[:failed]
    assert_equal 1, RunDiff.soaks(after, before, metric: "rps")[:rows].size, "parts only beside a memory metric"
  end

  def soak_with_ledger(held_kb)
    soak([100.0] * 30).tap do |side|
      parts = [Summary::LedgerPart.new(name: "malloc held free", kb: held_kb),
               Summary::LedgerPart.new(name: "YJIT code", kb: nil)]
      side[:summary] = side[:summary].with(ledger: Summary::Ledger.new(parts: parts))
    end
  end

  private

  def compare_summary(memory_by_config, rps: nil)
    rows = memory_by_config.map do |name, values|
      runs = values.each_with_index.map do |kb, i|
        Summary::RunFigures.new(steady_rss_kb: kb, steady_pss_kb: kb * 0.6, peak_rss_kb: kb * 1.2,
                                rps: rps ? rps[i] : 500.0, p99_ms: 40.0)
      end
      Summary::Row.new(name: name, runs: runs)
    end
    Summary::Compare.new(kind: "compare", metric: "steady_rss_kb", rows: rows)
  end
end
