# frozen_string_literal: true

require "test_helper"

# What the agent cost the app in a comparison: throughput, CPU and, since its code moves Ruby's heap lottery, the
# steady memory, each the baseline's median with it against the one run without, as data
# (CompareSentencesTest words it).
class AgentCostTest < Minitest::Test
  AgentCost = Mallard::Analysis::AgentCost
  RunFigures = Mallard::Summary::RunFigures

  def test_throughput_cpu_and_memory_with_the_agent_against_without
    with = [[3327.0, 0.31, 130_196], [3398.0, 0.30, 119_664]].map do |rps, cpu, rss|
      RunFigures.new(rps: rps, cpu_ms_per_request: cpu, steady_rss_kb: rss)
    end
    without = RunFigures.new(rps: 3680.5, cpu_ms_per_request: 0.2828, steady_rss_kb: 144_596)
    cost = AgentCost.call(with, without)

    assert_in_delta(-8.6, cost.rps_pct, 0.1)
    assert_in_delta 124_930, cost.steady_rss_kb_with, 1
    assert_in_delta(-13.6, cost.rss_pct, 0.1)
    assert cost.memory_moved, "more than two runs of one app settle apart"
    assert_nil cost.sentence
  end

  # One run without it decides nothing; the runs with it give the spread it is read against.
  def test_the_runs_with_the_agent_give_the_spread_one_run_without_is_read_against
    with = [3327.0, 3398.0, 3100.0].map { |rps| RunFigures.new(rps: rps) }
    cost = AgentCost.call(with, RunFigures.new(rps: 3680.5))

    assert_equal [3100.0, 3398.0], cost.rps_with_range
    assert_equal 3, cost.runs_with
    assert_in_delta 9.0, cost.rps_spread_pct, 0.05
  end

  def test_one_run_with_the_agent_gives_no_spread
    cost = AgentCost.call([RunFigures.new(rps: 100.0)], RunFigures.new(rps: 110.0))

    assert_nil cost.rps_spread_pct
  end

  # Moved by less than two runs of one app settle apart, the agent is taken to move every configuration alike.
  def test_memory_moved_within_run_to_run_variation_leaves_the_differences_alone
    with = [RunFigures.new(rps: 100.0, steady_rss_kb: 102_400)]
    cost = AgentCost.call(with, RunFigures.new(rps: 100.0, steady_rss_kb: 97_280))

    assert_in_delta 5.3, cost.rss_pct, 0.1
    refute cost.memory_moved
  end

  def test_a_run_without_a_memory_figure_says_nothing_of_memory
    cost = AgentCost.call([RunFigures.new(rps: 100.0)], RunFigures.new(rps: 110.0))

    assert_nil cost.rss_pct
    assert_nil cost.memory_moved
  end

  def test_no_run_without_the_agent_keeps_why
    cost = AgentCost.unmeasured("the machine was busy")

    assert_equal ["the machine was busy", nil], [cost.unmeasured, cost.rps_pct]
  end
end
