# frozen_string_literal: true

require "test_helper"

class RankShiftTest < Minitest::Test
  RankShift = Mallard::Analysis::RankShift

  # 4 against 4, completely separated: the interval is the range of the 16 differences, at 1 - 2/70.
  def test_four_against_four_spans_every_difference
    result = RankShift.call([1.0, 2, 3, 4], [5.0, 6, 7, 8])

    assert_in_delta(-4.0, result.estimate)
    assert_equal [-7.0, -1.0], result.ci
    assert_in_delta 1 - (2 / 70.0), result.confidence
    assert_equal "exact", result.approach
  end

  # Critical values of the two-sided 5% Mann–Whitney test from the published tables (k = U + 1).
  def test_ranks_match_the_tables
    { [5, 8] => 7, [10, 10] => 24, [20, 20] => 128, [6, 9] => 11 }.each do |(n, m), k|
      assert_equal k, RankShift.send(:rank_for, n, m, 0.95).first, "#{n} against #{m}"
    end
  end

  def test_too_few_for_ninety_five_percent_have_no_interval
    assert_nil RankShift.call([1.0, 2, 3], [4.0, 5, 6]).ci
    assert_nil RankShift.call([1.0, 2], [4.0, 5, 6, 7, 8, 9, 10]).ci
    refute_nil RankShift.call([1.0, 2], [4.0, 5, 6, 7, 8, 9, 10, 11]).ci
    assert_equal [[1, 39], [2, 8], [3, 5], [4, 4]], RankShift.smallest_sizes
  end

  # Past EXACT_LIMIT pairs the normal approximation takes over and agrees with the exact rank to within one.
  def test_normal_approximation_agrees_with_the_exact_rank
    exact = RankShift.send(:rank_for, 90, 100, 0.95).first
    normal = RankShift.send(:normal_rank, 90, 100, 0.95).first

    assert_in_delta exact, normal, 1
    assert_equal "normal", RankShift.call(Array.new(101, &:to_f), Array.new(100, &:to_f)).approach
  end

  # The interval covers the true shift at least 95% of the time, whatever the distribution (here log-normal
  # processes with an outlier-prone tail), so identical sets are rarely called different.
  def test_identical_sets_are_rarely_called_different
    random = Random.new(7)
    draw = -> { Math.log(Math.exp(random.rand * 0.3) * (random.rand < 0.1 ? 2.0 : 1.0)) }
    misses = Array.new(2000) do
      ci = RankShift.call(Array.new(6) { draw.call }, Array.new(8) { draw.call }).ci
      ci[0].positive? || ci[1].negative?
    end.count(true)

    assert_operator misses / 2000.0, :<=, 0.06, "#{misses} of 2000 intervals missed a shift of 0"
  end
end
