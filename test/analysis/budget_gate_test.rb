# frozen_string_literal: true

require "test_helper"

# The budget's gate (Analysis::BudgetGate): a figure fails only when the whole 95% interval of its change lies above
# its allowance; a change whose interval reaches under it, too few repeats, or no baseline never fails. An A/A of
# figures drawn from the same noise as the real runs' fails at most 1 time in 20.
class BudgetGateTest < Minitest::Test
  Gate = Mallard::Analysis::BudgetGate
  BASELINE = [32_100, 32_862, 33_160].freeze

  def test_a_rise_whose_whole_interval_is_above_the_allowance_is_over
    verdict, change = Gate.call([40_100, 40_500, 39_900], BASELINE, 5)

    assert_equal "over", verdict
    assert_operator change.ci.first, :>, 5
  end

  def test_a_rise_whose_interval_reaches_under_the_allowance_is_within
    verdict, change = Gate.call([34_200, 35_600, 33_000], BASELINE, 5)

    assert_equal "within", verdict
    assert_operator change.pct, :>, 0
    assert_operator change.ci.first, :<=, 5
  end

  def test_a_rise_clear_of_zero_but_not_of_the_allowance_is_within
    verdict, change = Gate.call([34_300, 34_400, 34_350], BASELINE, 5)

    assert_equal "within", verdict
    assert_operator change.ci.first, :>, 0, "the rise is real, yet under the allowance"
  end

  def test_a_single_repeat_has_no_interval_and_never_fails
    verdict, change = Gate.call([90_000], [32_100], 5)

    assert_equal "no_interval", verdict
    assert_nil change.ci
    assert_match(/no interval/, change.note)
  end

  def test_exact_figures_that_rose_are_over_and_those_that_did_not_are_within
    assert_equal "over", Gate.call([90, 90, 90], [38, 38, 38], 5).first
    assert_equal "within", Gate.call([38, 38, 38], [38, 38, 38], 5).first
  end

  def test_without_a_baseline_or_a_value_nothing_is_gated
    assert_equal ["no_baseline", nil], Gate.call([1, 2], [], 5)
    assert_equal ["unmeasured", nil], Gate.call([nil, nil], BASELINE, 5)
  end

  # 3 against 3, each side a session of its own, at the noise of the steady PSS of 3-second soaks of the budgeted
  # fixture (bench/budget_aa.rb: 5.7% within a session, 3.8% between sessions): two thousand A/A gates, seeded, at
  # steady memory's allowance, fail well under 1 in 20.
  def test_an_aa_of_noisy_sessions_fails_at_most_one_time_in_twenty
    random = Random.new(44)
    draw = lambda do
      offset = 0.038 * normal(random)
      Array.new(3) { 32_000 * Math.exp(offset + (0.057 * normal(random))) }
    end
    allowance = Mallard::Run::BudgetFile.allowance("steady_pss_kb")
    failures = Array.new(2000) { Gate.call(draw.call, draw.call, allowance).first }.count("over")

    assert_operator failures, :<=, 100
  end

  private

  def normal(random) = Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)
end
