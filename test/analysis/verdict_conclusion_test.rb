# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The soak verdict in two parts, joined: where growth comes from.
class VerdictConclusionTest < Minitest::Test
  include GcRuns
  Conclusion = Mallard::Analysis::VerdictConclusion

  def test_a_flat_live_set_under_rising_memory_points_to_the_allocator
    overall, sentence = Conclusion.call(memory: "growing", live_set: "plateaued")

    assert_equal "growing", overall
    assert_match(/allocator is holding memory/, sentence)
    assert_match(/mallard compare/, sentence)
    assert_match(/glibc-arena2/, sentence)
  end

  def test_a_growing_live_set_points_to_the_app
    overall, sentence = Conclusion.call(memory: "plateaued", live_set: "growing")

    assert_equal "growing", overall
    assert_match(/retains objects \(a cache or a leak\)/, sentence)
  end

  def test_a_bounded_app_is_not_inconclusive_as_a_whole_once_its_live_set_levelled_off
    overall, sentence = Conclusion.call(memory: "inconclusive", live_set: "plateaued")

    assert_equal "plateaued", overall
    assert_match(/levelled off/, sentence)
  end

  def test_without_a_live_set_memory_decides
    assert_equal "growing", Conclusion.call(memory: "growing", live_set: nil).first
  end

  def test_the_summary_carries_both_parts_and_round_trips
    random = Random.new(5)
    rising = ticks(61, rss: ->(i) { 80_000 + (300 * i) })
    events = major_events(30, live: ->(_i) { 300_000 + random.rand(-1000..1000) }, pause: ->(_i) { 5 + random.rand })
    agent = agent_records(61, old: ->(_i) { 250_000 })
    summary = Mallard::Analysis::SoakSummary.call(gc_run(totals: rising, events: events, agent: agent))

    assert_equal "gc", summary.kind
    assert_equal %w[growing plateaued growing], [summary.verdict.memory, summary.verdict.live_set,
                                                 summary.verdict.overall]
    assert_match(/allocator/, summary.verdict.conclusion)
    assert_round_trips(summary)
  end

  private

  def assert_round_trips(summary)
    reloaded = Mallard::Summary::Soak.from_h(JSON.parse(JSON.generate(summary.to_h)))

    assert_equal summary.to_h, reloaded.to_h
    %w[verdict.live_set live_set.slope live_set.ci gc.runs gc.major gc.minor gc.pause_ms.p50 gc.pause_ms.p99
       gc.pause_ms.max gc.wall_share gc.major_time_vs_live_set.ci].each do |key|
      refute_nil reloaded.to_h.dig(*key.split(".").map(&:to_sym)), key
    end
  end
end
