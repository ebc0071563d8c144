# frozen_string_literal: true

require "test_helper"

# `--concurrency auto`: the fewest connections that reach the app's best throughput within its latency.
class ConcurrencyChoiceTest < Minitest::Test
  Choice = Mallard::Analysis::ConcurrencyChoice

  def test_the_ramp_goes_on_while_a_doubling_adds_throughput_and_stops_at_the_knee
    assert Choice.go_on?(ramp([1, 40.0, 30]))
    assert Choice.go_on?(ramp([1, 40.0, 30], [2, 70.0, 35]))
    refute Choice.go_on?(ramp([1, 40.0, 30], [2, 70.0, 35], [4, 74.0, 60]))
  end

  def test_the_ramp_stops_at_errors_or_latency_past_a_quarter_of_the_timeout
    refute Choice.go_on?(ramp([1, 40.0, 30], [2, 70.0, 35, 3]))
    refute Choice.go_on?(ramp([1, 40.0, 30], [2, 70.0, 1_300]))
  end

  def test_the_ramp_stops_before_its_largest_step
    steps = [1, 2, 4, 8, 16, 32].each_with_index.map { |c, i| [c, 10.0 * (2**i), 10] }

    refute Choice.go_on?(ramp(*steps, [64, 1000.0, 10]))
    assert Choice.go_on?(ramp(*steps))
  end

  def test_the_choice_is_the_fewest_connections_within_ninety_percent_of_the_best_clean_step
    choice = Choice.call(ramp([1, 40.0, 30], [2, 70.0, 35], [4, 80.0, 60], [8, 82.0, 900], [16, 95.0, 2_000]))

    assert_equal [4, 80.0, 82.0, 1_250.0], [choice.chosen, choice.rps, choice.best_rps, choice.latency_limit_ms]
  end

  def test_no_clean_step_chooses_nothing
    assert_nil Choice.call(ramp([1, 0.5, 4_000])).chosen
  end

  private

  # Steps as [concurrency, req/s, p99 ms, errors].
  def ramp(*steps)
    Mallard::Run::Ramp.new(step_s: 3, timeout_s: 5, steps: steps.map do |concurrency, rps, p99, errors|
      Mallard::Run::RampStep.new(concurrency: concurrency, rps: rps, p99_ms: p99, errors: errors || 0,
                                 requests: (rps * 3).round)
    end)
  end
end
