# frozen_string_literal: true

require "test_helper"

# The one change rule, on its edges: what it says when it cannot give an interval, or has nothing to compare.
class ChangeTest < Minitest::Test
  Change = Mallard::Analysis::Change

  def test_a_single_run_each_has_a_change_but_no_interval
    change = Change.call([90.0], [100.0])

    assert_in_delta(-10, change.pct, 1e-9)
    assert_nil change.ci
    refute change.significant
    assert_equal "no_interval", change.finding
    assert_equal "no interval: one run each", change.note
    assert_equal Change::SINGLE_RUN, change.note
  end

  def test_a_single_run_on_one_side_says_which
    assert_equal "no interval: a single run in A", Change.call([90.0, 91.0], [100.0]).note
    assert_equal "no interval: a single run in B", Change.call([90.0], [100.0, 101.0]).note
  end

  def test_identical_values_are_no_difference
    [[100.0] * 3, [99.0, 100.0, 101.0]].each do |values|
      change = Change.call(values, values)

      assert_in_delta 0, change.pct, 1e-9
      assert_operator change.ci[0], :<=, 0
      assert_operator change.ci[1], :>=, 0
      refute change.significant
      assert_equal "no_difference", change.finding
      assert_nil change.note
    end
  end

  def test_a_change_beyond_the_noise_band_is_different
    change = Change.call([90.0] * 3, [100.0] * 3)

    assert_equal([-10.0, -10.0], change.ci.map { |bound| bound.round(9) })
    assert change.significant
    assert_equal "different", change.finding
  end

  # Told from zero, not from the ±1% band: real, perhaps, and too small to act on.
  def test_a_precise_half_percent_is_within_noise
    change = Change.call([100.5] * 3, [100.0] * 3)

    refute change.significant
    assert_equal "within_noise", change.finding
  end

  def test_zeros_have_no_ratio
    [[[0, 0], [0, 0]], [[0.0], [100.0]], [[], [100.0]], [[100.0, nil], [100.0, 100.0]]].each do |after, before|
      change = Change.call(after, before)

      assert_nil change.pct, [after, before].inspect
      assert_nil change.ci
      refute change.significant
      assert_equal "no_interval", change.finding
      assert_equal "no figures to compare", change.note
    end
  end

  def test_the_level_interval_brackets_the_geometric_mean
    low, high = Change.level_ci([90.0, 100.0, 110.0])

    assert_operator low, :<, 100
    assert_operator high, :>, 100
    assert_nil Change.level_ci([100.0])
    assert_nil Change.level_ci([0.0, 100.0])
  end
end
