# frozen_string_literal: true

require "test_helper"

# The lab's prediction against the fleet's change: the two intervals decide (Analysis::Expectation).
class ExpectationTest < Minitest::Test
  PREDICTION = Mallard::Summary::Prediction.new(run: "runs/compare", config: "glibc-arena2", baseline: "glibc",
                                                metric: "steady_pss_kb", pct: -28.8, ci: [-38.1, -18.0],
                                                finding: "different", chosen_by: "recommendation")

  def test_overlapping_intervals_clear_of_zero_are_as_predicted
    expected = judge(change(-21.3, [-24.0, -18.5]))

    assert_equal ["as_predicted", nil], [expected.verdict, expected.why]
    assert_equal [-28.8, [-38.1, -18.0], -21.3, [-24.0, -18.5]],
                 expected.to_h.values_at(:predicted_pct, :predicted_ci, :observed_pct, :observed_ci)
    assert_nil expected.metric_note
  end

  def test_an_interval_wholly_nearer_no_change_is_smaller_and_one_beyond_is_larger
    assert_equal "smaller_than_predicted", judge(change(0.4, [-2.1, 3.0])).verdict
    assert_equal "smaller_than_predicted", judge(change(-9.0, [-12.0, -6.0])).verdict
    assert_equal "larger_than_predicted", judge(change(-50.0, [-55.0, -45.0])).verdict
  end

  def test_growth_predicted_and_a_prediction_of_no_change
    growth = PREDICTION.with(pct: 12.0, ci: [8.0, 16.0])
    none = PREDICTION.with(pct: -0.5, ci: [-3.0, 2.0])

    assert_equal "smaller_than_predicted", judge(change(1.0, [-1.0, 3.0]), growth).verdict
    assert_equal "as_predicted", judge(change(0.3, [-1.5, 2.5]), none).verdict, "no change, as the lab said"
    assert_equal "larger_than_predicted", judge(change(-20.0, [-25.0, -15.0]), none).verdict
  end

  # A wide interval holding both no change and the prediction cannot tell them apart: how many more processes would.
  # Half-width 20 points against the 14.4 needed: (20 / 14.4)² ≈ 1.93 times the 16 processes, 15 more.
  def test_an_interval_holding_both_no_change_and_the_prediction_is_undecided_with_what_would_decide_it
    expected = judge(change(-15.0, [-35.0, 5.0]))

    assert_equal %w[undecided cannot_tell_from_none], [expected.verdict, expected.why]
    assert_equal 15, expected.more_processes
    assert_in_delta 7.5, expected.more_process_hours, 0.01, "over a 30-minute window"
  end

  def test_no_interval_yet_is_undecided_with_the_processes_the_rank_interval_needs
    expected = judge(change(-20.0, nil), processes: [3, 2])

    assert_equal %w[undecided too_few_processes], [expected.verdict, expected.why]
    assert_equal 3, expected.more_processes, "3 against 5 or 4 against 4: the nearest sizes with an interval"
  end

  def test_a_prediction_without_an_interval_is_held_as_its_point_and_a_different_metric_is_said
    point = PREDICTION.with(ci: nil)

    assert_equal "as_predicted", judge(change(-27.0, [-31.0, -24.0]), point).verdict
    assert_equal "smaller_than_predicted", judge(change(-10.0, [-13.0, -7.0]), point).verdict
    assert_equal "the lab compared steady_pss_kb, the fleet rss",
                 judge(change(-27.0, [-31.0, -24.0]), metric: "rss").metric_note
  end

  # Where the fleet falls short, the ledger's part furthest from the lab's prediction for it is named.
  def test_a_disagreement_names_the_part_furthest_from_the_prediction
    ledger = PREDICTION.with(ledger_kb: { "malloc held free" => -120_000.0, "ruby live objects" => 500.0 })
    observed = { "malloc held free" => -3_000.0, "ruby live objects" => 800.0, "stacks" => 10.0 }
    short = judge(change(0.4, [-2.1, 3.0]), ledger, parts: observed)

    assert_equal "malloc held free", short.differing_part
    gaps = short.parts.map { |gap| gap.to_h.values }
    assert_equal [["malloc held free", -120_000.0, -3_000.0, 117_000.0], ["ruby live objects", 500.0, 800.0, 300.0],
                  ["stacks", nil, 10.0, nil]], gaps
    assert_nil judge(change(-21.3, [-24.0, -18.5]), ledger, parts: observed).differing_part, "as predicted"
  end

  private

  def judge(observed, prediction = PREDICTION, processes: [8, 8], metric: "pss", parts: {})
    Mallard::Analysis::Expectation.call(prediction, observed, processes: processes, window_s: 1800.0,
                                                              metric: metric, parts: parts)
  end

  def change(pct, interval)
    Mallard::Summary::Change.new(pct: pct, ci: interval, finding: interval ? "different" : "no_interval")
  end
end
