# frozen_string_literal: true

require "test_helper"

# The leak fit's x axis: requests the agent counted, else estimated from the load tool's rate; an idle soak's is time.
class RequestAxisTest < Minitest::Test
  PHASES = Mallard::Run::Phases.new(load_started_t: 2.0)

  def samples(*pairs) = pairs.map { |t, requests| Mallard::Run::TotalSample.new(t: t, requests: requests) }

  def test_an_idle_soak_is_judged_over_the_seconds_since_its_start
    readings = samples([2.5, 0], [3.0, 0], [4.0, 3])
    axis, source = Mallard::Analysis::RequestAxis.call(readings, load: nil, phases: PHASES, idle: true)

    assert_equal [0.5, 1.0, 2.0], axis
    assert_equal "seconds with no work (--idle)", source
  end

  def test_work_counted_by_the_agent_is_the_axis_otherwise
    axis, source = Mallard::Analysis::RequestAxis.call(samples([2.5, 0], [3.0, 10]), load: nil, phases: PHASES)

    assert_equal [[0, 10], "agent"], [axis, source]
  end
end
