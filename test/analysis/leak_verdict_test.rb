# frozen_string_literal: true

require "test_helper"
require "mallard/analysis/statistics"
require "mallard/analysis/leak_verdict"

class LeakVerdictTest < Minitest::Test
  LeakVerdict = Mallard::Analysis::LeakVerdict
  BASELINE_KB = 80 * 1024
  SEEDS = 200
  # The A/A guard: a process that does not grow may be called "growing" at most this often.
  FALSE_GROWING_RATE = 0.05

  def test_a_leak_of_50_kb_per_1k_requests_is_growing
    requests = cumulative(100, 100_000)
    random = Random.new(1)
    verdict = LeakVerdict.call(requests: requests,
                               rss_kb: requests.map { |served| BASELINE_KB + (0.05 * served) + noise(random, 200) })

    assert_equal "growing", verdict.memory
    assert_operator verdict.ci[0], :<, 50
    assert_operator verdict.ci[1], :>, 50
    assert_in_delta 50, verdict.slope_kb_per_1k_requests, 5
    assert_nil verdict.requests_needed
    assert_match(/batch means/, verdict.methodology)
  end

  # 50 KB per 1k requests over 20k requests is 1 MB, inside the tolerance: not yet worth reporting.
  def test_a_leak_too_small_over_the_span_is_inconclusive_and_says_how_long_to_run
    requests = cumulative(100, 20_000)
    random = Random.new(3)
    verdict = LeakVerdict.call(requests: requests,
                               rss_kb: requests.map { |served| BASELINE_KB + (0.05 * served) + noise(random, 200) })

    assert_equal "inconclusive", verdict.memory
    assert_operator verdict.ci[0], :>, 0
    assert_operator verdict.requests_needed, :>, 20_000
    assert_operator verdict.requests_needed, :<, 40_000
  end

  def test_a_flat_noisy_series_is_plateaued
    verdicts = Array.new(SEEDS) do |seed|
      random = Random.new(seed)
      requests = cumulative(100, 20_000)
      LeakVerdict.call(requests: requests, rss_kb: requests.map { BASELINE_KB + noise(random, 200) })
    end

    assert_operator rate(verdicts, "growing"), :<=, FALSE_GROWING_RATE
    assert_operator rate(verdicts, "plateaued"), :>=, 0.95
  end

  def test_a_flat_series_with_a_slow_wobble_is_plateaued_not_growing
    verdicts = Array.new(SEEDS) do |seed|
      requests = cumulative(120, 30_000)
      LeakVerdict.call(requests: requests, rss_kb: wobble(Random.new(seed), requests.size, 0.9, 130))
    end

    assert_operator rate(verdicts, "growing"), :<=, FALSE_GROWING_RATE
    assert_operator rate(verdicts, "plateaued"), :>=, 0.75
  end

  # A wobble as large as the tolerance: a naive interval over the raw samples calls it "growing" too often.
  def test_autocorrelated_noise_does_not_fool_the_verdict_where_a_naive_fit_is_fooled
    requests = cumulative(300, 30_000)
    naive = 0
    verdicts = Array.new(SEEDS) do |seed|
      rss_kb = wobble(Random.new(seed), requests.size, 0.95, 400)
      naive += 1 if naive_growing?(requests, rss_kb)
      LeakVerdict.call(requests: requests, rss_kb: rss_kb)
    end

    assert_operator naive.fdiv(SEEDS), :>, FALSE_GROWING_RATE, "the scenario should be hard"
    assert_operator rate(verdicts, "growing"), :<=, FALSE_GROWING_RATE
  end

  def test_a_short_noisy_run_is_inconclusive_and_asks_for_more_requests
    requests = cumulative(8, 2000)
    random = Random.new(3)
    verdict = LeakVerdict.call(requests: requests, rss_kb: requests.map { BASELINE_KB + noise(random, 400) })

    assert_equal "inconclusive", verdict.memory
    assert_kind_of Integer, verdict.requests_needed
    assert_operator verdict.requests_needed, :>, verdict.requests_observed
    assert_equal 8, verdict.samples
    assert_operator verdict.ci[0], :<, verdict.slope_kb_per_1k_requests
    assert_operator verdict.ci[1], :>, verdict.slope_kb_per_1k_requests
  end

  def test_too_few_samples_or_no_requests_cannot_be_judged
    [LeakVerdict.call(requests: [0, 10, 20, 30, 40], rss_kb: [1, 2, 3, 4, 5]),
     LeakVerdict.call(requests: [50] * 10, rss_kb: Array.new(10) { |i| 1000 + i })].each do |verdict|
      assert_equal "inconclusive", verdict.memory
      assert_nil verdict.slope_kb_per_1k_requests
      assert_nil verdict.ci
      assert_nil verdict.requests_needed
    end
  end

  def test_tolerance_is_one_percent_of_the_median_but_at_least_a_megabyte
    requests = cumulative(10, 1000)

    assert_in_delta 1024, LeakVerdict.call(requests: requests, rss_kb: [50_000] * 10).tolerance_kb
    assert_in_delta 5000, LeakVerdict.call(requests: requests, rss_kb: [500_000] * 10).tolerance_kb
  end

  def test_verdict_serialises_to_a_hash
    requests = cumulative(10, 1000)
    hash = LeakVerdict.call(requests: requests, rss_kb: [50_000] * 10).to_h

    assert_equal %i[memory slope_kb_per_1k_requests ci samples requests_observed tolerance_kb requests_needed
                    methodology],
                 hash.keys
    assert_equal "plateaued", hash[:memory]
    assert_equal 1000, hash[:requests_observed]
  end

  def test_series_of_different_lengths_are_refused
    assert_raises(ArgumentError) { LeakVerdict.call(requests: [1, 2, 3], rss_kb: [1, 2]) }
  end

  private

  def cumulative(samples, total)
    Array.new(samples) { |i| (i * total / (samples - 1.0)).round }
  end

  # AR(1) drift plus measurement noise around a flat baseline.
  def wobble(random, size, persistence, step_kb)
    drift = 0.0
    Array.new(size) do
      drift = (persistence * drift) + noise(random, step_kb)
      BASELINE_KB + drift + noise(random, 100)
    end
  end

  # The rule applied to an OLS interval over every raw sample, as if they were independent.
  def naive_growing?(requests, rss_kb)
    low = Mallard::Analysis::Statistics.linear_fit(requests, rss_kb).slope_ci[0]
    low.positive? && low * (requests.max - requests.min) > 1024
  end

  def rate(verdicts, memory)
    verdicts.count { |verdict| verdict.memory == memory }.fdiv(verdicts.size)
  end

  def noise(random, spread_kb)
    spread_kb * Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)
  end
end
