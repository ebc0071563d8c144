# frozen_string_literal: true

require "test_helper"
require "mallard/analysis/statistics"

class StatisticsTest < Minitest::Test
  Statistics = Mallard::Analysis::Statistics

  def test_batch_means_of_contiguous_slices
    assert_equal [1.5, 3.5, 6.0], Mallard::Analysis::Statistics.batch_means([1, 2, 3, 4, 5, 6, 7], 3)
  end

  def test_summaries_of_a_small_sample
    values = [4, 1, 3, 2]

    assert_in_delta 2.5, Statistics.mean(values)
    assert_in_delta 2.5, Statistics.median(values)
    assert_in_delta 3, Statistics.median([5, 3, 1])
    assert_in_delta Math.sqrt(5.0 / 3), Statistics.stddev(values)
  end

  def test_summaries_of_nothing_are_nil
    assert_nil Statistics.mean([])
    assert_nil Statistics.median([])
    assert_nil Statistics.stddev([])
    assert_nil Statistics.percentile([], 50)
    assert_nil Statistics.bootstrap_ci([])
  end

  def test_a_single_value_has_no_sample_standard_deviation
    assert_nil Statistics.stddev([7])
  end

  # Expected values from numpy.percentile (linear interpolation).
  def test_percentile_interpolates_between_closest_ranks_like_numpy
    assert_in_delta 1.75, Statistics.percentile([1, 2, 3, 4], 25)
    assert_in_delta 29.0, Statistics.percentile([50, 15, 40, 20, 35], 40)
    assert_in_delta 15, Statistics.percentile([50, 15, 40, 20, 35], 0)
    assert_in_delta 50, Statistics.percentile([50, 15, 40, 20, 35], 100)
    assert_in_delta 7, Statistics.percentile([7], 90)
  end

  def test_percentile_outside_0_to_100_is_refused
    assert_raises(ArgumentError) { Statistics.percentile([1, 2], 101) }
  end

  def test_t_quantiles_match_the_tables
    { 1 => 12.706, 2 => 4.303, 5 => 2.571, 10 => 2.228, 30 => 2.042, 1000 => 1.962 }.each do |df, expected|
      assert_in_delta expected, Statistics.t_quantile(df), 1e-3, "df=#{df}"
    end
    assert_in_delta 3.169, Statistics.t_quantile(10, 0.995), 1e-3
    assert_in_delta 63.657, Statistics.t_quantile(1, 0.995), 1e-3
  end

  def test_t_quantile_is_symmetric_about_zero
    assert_in_delta(-2.228, Statistics.t_quantile(10, 0.025), 1e-3)
    assert_in_delta 0, Statistics.t_quantile(4, 0.5)
  end

  def test_t_quantile_of_one_df_is_the_cauchy_quantile
    assert_in_delta Math.tan(Math::PI * 0.49), Statistics.t_quantile(1, 0.99), 1e-6
  end

  def test_t_quantile_refuses_impossible_arguments
    assert_raises(ArgumentError) { Statistics.t_quantile(0) }
    assert_raises(ArgumentError) { Statistics.t_quantile(5, 1) }
  end

  def test_bootstrap_of_the_median_brackets_it_and_repeats_for_the_same_seed
    values = Array.new(40) { |i| (i * 7) % 40 }
    interval = Statistics.bootstrap_ci(values, random: Random.new(3))

    assert_equal interval, Statistics.bootstrap_ci(values, random: Random.new(3))
    assert_operator interval[0], :<=, Statistics.median(values)
    assert_operator interval[1], :>=, Statistics.median(values)
  end

  def test_bootstrap_takes_any_statistic
    values = Array.new(50, &:to_f)
    wide = Statistics.bootstrap_ci(values, resamples: 500) { |sample| Statistics.mean(sample) }
    narrow = Statistics.bootstrap_ci(values, level: 0.5, resamples: 500) { |sample| Statistics.mean(sample) }

    assert_operator wide[0], :<, 24.5
    assert_operator wide[1], :>, 24.5
    assert_operator narrow[1] - narrow[0], :<, wide[1] - wide[0]
  end

  # Reference: R, t.test(1:5)$conf.int.
  def test_mean_interval_is_student_t_on_n_minus_1_df
    low, high = Statistics.mean_ci([1, 2, 3, 4, 5])

    assert_in_delta 1.036757, low, 1e-6
    assert_in_delta 4.963243, high, 1e-6
    assert_nil Statistics.mean_ci([7])
    assert_equal [2.0, 2.0], Statistics.mean_ci([2, 2, 2])
  end

  # Reference: R, t.test(1:3, 4:6)$conf.int (Welch, 4 df).
  def test_welch_interval_of_a_difference_of_means
    low, high = Statistics.welch_ci([1, 2, 3], [4, 5, 6])

    assert_in_delta(-5.266958, low, 1e-6)
    assert_in_delta(-0.733042, high, 1e-6)
  end

  # With one sample constant, Welch-Satterthwaite gives the other sample's n - 1 df.
  def test_welch_interval_when_one_sample_has_no_spread
    low, high = Statistics.welch_ci([5, 5, 5], [1, 2, 3])

    half_width = Statistics.t_quantile(2) * Math.sqrt(1.0 / 3)
    assert_in_delta 3 - half_width, low, 1e-9
    assert_in_delta 3 + half_width, high, 1e-9
  end

  def test_welch_interval_without_spread_or_without_enough_values
    assert_equal [-1.0, -1.0], Statistics.welch_ci([4, 4], [5, 5, 5])
    assert_nil Statistics.welch_ci([4], [5, 6])
    assert_raises(ArgumentError) { Statistics.welch_ci([1, 2], [3, 4], level: 1) }
  end

  def test_exact_line_is_fitted_exactly
    fit = Statistics.linear_fit([0, 1, 2, 3], [1, 3, 5, 7])

    assert_in_delta 2, fit.slope
    assert_in_delta 1, fit.intercept
    assert_in_delta 1, fit.r_squared
    assert_in_delta 0, fit.residual_sd
    assert_equal 4, fit.n
    fit.slope_ci.each { |bound| assert_in_delta 2, bound }
  end

  # Reference: R, confint(lm(y ~ x)) on the same five points.
  def test_noisy_line_has_a_t_interval_on_n_minus_2_df
    fit = Statistics.linear_fit([1, 2, 3, 4, 5], [2.1, 3.9, 6.2, 7.8, 10.1])

    assert_in_delta 1.99, fit.slope, 1e-9
    assert_in_delta 0.05, fit.intercept, 1e-9
    assert_in_delta 0.188856, fit.residual_sd, 1e-6
    assert_in_delta 0.997305, fit.r_squared, 1e-6
    assert_in_delta 1.799939, fit.slope_ci[0], 1e-5
    assert_in_delta 2.180061, fit.slope_ci[1], 1e-5
  end

  def test_constant_ys_are_a_perfect_flat_fit
    fit = Statistics.linear_fit([1, 2, 3], [5, 5, 5])

    assert_in_delta 0, fit.slope
    assert_in_delta 1, fit.r_squared
  end

  def test_a_fit_needs_three_points_with_distinct_xs
    assert_raises(ArgumentError) { Statistics.linear_fit([1, 2], [1, 2]) }
    assert_raises(ArgumentError) { Statistics.linear_fit([3, 3, 3], [1, 2, 3]) }
    assert_raises(ArgumentError) { Statistics.linear_fit([1, 2, 3], [1, 2]) }
  end

  def test_spearman_of_a_monotone_but_curved_relation_is_one
    xs = (1..10).to_a
    ranked = Statistics.spearman(xs, xs.map { |x| x**3 })

    assert_in_delta 1.0, ranked.rho
    assert_operator ranked.ci[0], :>, 0.3
    assert_in_delta 1.0, ranked.ci[1]
  end

  def test_spearman_shares_ranks_among_ties_and_gives_an_interval_around_zero_for_noise
    assert_equal [3.5, 1.0, 3.5, 2.0], Statistics.ranks([3, 1, 3, 2])
    random = Random.new(7)
    low, high = Statistics.spearman((1..30).to_a, Array.new(30) { random.rand }).ci

    assert_operator low, :<, 0
    assert_operator high, :>, 0
    assert_nil Statistics.spearman([1, 2, 3], [1, 2, 3]), "below 4 pairs"
    assert_nil Statistics.spearman([1, 2, 3, 4], [5, 5, 5, 5]), "no spread"
  end

  # 4 points ranked perfectly: 1 ordering in 24 does that, and 1 the reverse (p = 1/24 one-sided, 1/12 two-sided):
  # not beyond chance at 5%, so the interval holds zero. Fisher's z said 1.00 … 1.00.
  def test_spearman_at_four_points_a_perfect_ranking_is_not_resolved
    ranked = Statistics.spearman([1, 2, 3, 4], [10, 20, 30, 40])

    assert_in_delta 1.0, ranked.rho
    assert_in_delta 2.0 / 24, ranked.p_value, 1e-12
    assert_in_delta 0.0, ranked.ci[0], 1e-9, "rho minus 1.0: chance reaches |rho| = 1 in 2 of 24 orderings"
    assert_in_delta 1.0, ranked.ci[1]
    assert_operator ranked.ci[1] - ranked.ci[0], :>, 0.5, "never of zero width"
    assert_match(/exact/, ranked.methodology)
  end

  # 5 points: a perfect ranking is 2 orderings of 120 (p = 1/60), resolved; rho = 0.9 is 10 of 120 (p = 1/12),
  # not. The band is 0.9, the largest |rho| chance reaches more than 5% of the time.
  def test_spearman_at_five_points_a_perfect_ranking_is_resolved_and_one_swap_is_not
    perfect = Statistics.spearman([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    one_swap = Statistics.spearman([1, 2, 3, 4, 5], [2, 1, 3, 4, 5])
    falling = Statistics.spearman([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])

    assert_in_delta 1.0 / 60, perfect.p_value, 1e-12
    assert_in_delta 0.1, perfect.ci[0], 1e-9
    assert_in_delta 0.9, one_swap.rho, 1e-12
    assert_in_delta 10.0 / 120, one_swap.p_value, 1e-12
    assert_in_delta 0.0, one_swap.ci[0], 1e-9
    assert_in_delta(-0.1, falling.ci[1], 1e-9)
  end

  # 10 points, exactly enumerated (3,628,800 orderings): |rho| >= 0.648 has p = 0.04898, |rho| >= 0.636 has
  # p = 0.05443 (the published critical value for n = 10 at 5% two-sided is 0.648).
  def test_spearman_at_ten_points_matches_the_exact_critical_value
    xs = (1..10).to_a
    at_critical = Statistics.spearman(xs, [2, 3, 5, 6, 1, 9, 4, 10, 8, 7])
    below = Statistics.spearman(xs, [4, 1, 2, 8, 3, 9, 6, 5, 10, 7])

    assert_in_delta 642.0 / 990, at_critical.rho, 1e-9 # sum of squared rank differences 58
    assert_in_delta 0.04897872574955908, at_critical.p_value, 1e-12
    assert_operator at_critical.ci[0], :>, 0
    assert_in_delta 630.0 / 990, below.rho, 1e-9 # 60
    assert_in_delta 0.05443066578483245, below.p_value, 1e-12
    assert_operator below.ci[0], :<=, 0
    assert_in_delta 2.0 / 3_628_800, Statistics.spearman(xs, xs).p_value, 1e-15
  end

  # Beyond 10 points the null is drawn: it agrees with the exact one where both apply (published 0.362 at n = 30).
  def test_spearman_beyond_ten_points_draws_its_null_deterministically
    random = Random.new(9)
    xs = (1..30).to_a
    ys = xs.map { |x| x + (random.rand * 25) }
    first = Statistics.spearman(xs, ys)

    assert_match(/random permutations/, first.methodology)
    assert_equal first, Statistics.spearman(xs, ys)
    assert_in_delta 0.362, first.rho - first.ci[0], 0.02
  end
end
