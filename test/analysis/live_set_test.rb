# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The live set and its verdict, on hand-built runs: from per-GC events when there are some, from the agent's
# GC.stat intervals (old objects) when not; against requests for a server, seconds for a script.
class LiveSetTest < Minitest::Test
  include GcRuns
  LiveSet = Mallard::Analysis::LiveSet

  def test_a_live_set_that_grows_after_each_major_gc_is_growing
    random = Random.new(1)
    events = major_events(30, live: ->(i) { 200_000 + (20_000 * i) + random.rand(-2000..2000) })
    live_set = LiveSet.call(gc_run(events: events))

    assert_equal "growing", live_set.verdict
    assert_equal LiveSet::AFTER_MAJOR, live_set.measure
    assert_equal "slots per 1,000 requests", live_set.unit
    # 20,000 slots per second at 100 requests per second: 200,000 slots per 1,000 requests
    assert_in_delta 200_000, live_set.slope, 10_000
    assert_operator live_set.ci[0], :<, live_set.slope
    assert_operator live_set.ci[1], :>, live_set.slope
  end

  def test_a_live_set_that_levelled_off_is_plateaued
    random = Random.new(2)
    events = major_events(30, live: ->(_i) { 300_000 + random.rand(-1500..1500) })
    live_set = LiveSet.call(gc_run(events: events))

    assert_equal "plateaued", live_set.verdict
    assert_operator live_set.tolerance, :>=, LiveSet::MIN_TOLERANCE_SLOTS
  end

  def test_minor_gcs_do_not_count_as_readings_of_the_live_set
    events = (major_events(30, live: ->(_i) { 300_000 }) + minor_events(100)).sort_by(&:t)

    assert_equal 30, LiveSet.call(gc_run(events: events)).samples
  end

  def test_without_events_old_objects_at_each_interval_stand_in
    agent = agent_records(61, old: ->(i) { 100_000 + (5_000 * i) })
    live_set = LiveSet.call(gc_run(agent: agent, events: nil))

    assert_equal "growing", live_set.verdict
    assert_equal LiveSet::OLD_OBJECTS, live_set.measure
    assert_in_delta 100_000, live_set.slope, 1 # 5,000 per half second = 10,000/s = 100,000 per 1k requests
  end

  # A major GC recounts old objects from zero while it marks incrementally: a reading taken then is left out.
  def test_a_reading_taken_while_a_major_gc_marks_is_left_out
    levels = Array.new(61) { |i| 300_000 + (500 * ((-1)**i)) }
    levels[30] = 606
    agent = agent_records(61, old: ->(i) { levels[i] })
    live_set = LiveSet.call(gc_run(agent: agent))

    assert_equal 60, live_set.samples
    assert_equal "plateaued", live_set.verdict
  end

  def test_a_script_is_judged_per_second_over_its_whole_run
    events = major_events(12, live: ->(i) { 100_000 + (50_000 * i) }, start: 0.1, every: 0.2, requests_per_s: 0)
    live_set = LiveSet.call(gc_run(events: events, script: true))

    assert_equal "growing", live_set.verdict
    assert_equal "slots per second", live_set.unit
    assert_in_delta 250_000, live_set.slope, 1
  end

  def test_several_processes_are_summed
    events = major_events(20, live: ->(_i) { 100_000 }).each_with_index.map do |event, i|
      Mallard::Run::GcEvent.new(**event.to_h, pid: i.even? ? 1 : 2)
    end
    points = LiveSet.points(gc_run(events: events))

    assert_equal 200_000, points.last.slots
  end

  def test_nothing_measured_without_an_agent
    assert_nil LiveSet.call(gc_run(agent: [], events: nil))
  end

  def test_too_few_readings_are_inconclusive_without_a_slope
    live_set = LiveSet.call(gc_run(events: major_events(3, live: ->(i) { 100_000 * i })))

    assert_equal "inconclusive", live_set.verdict
    assert_nil live_set.slope
  end

  # The batch script of the report: 1 s, 607 GCs, no major among them — "inconclusive: needs 6 samples" before.
  # The live slots after each minor GC are readings too.
  def test_a_short_script_without_major_gcs_is_judged_on_every_gc
    random = Random.new(5)
    events = minor_events(607, start: 0.1, every: 1.0 / 607).map do |event|
      event.with(heap_live_slots: 18_800 + random.rand(-30..30))
    end
    live_set = LiveSet.call(gc_run(events: events, script: true))

    assert_equal "plateaued", live_set.verdict
    assert_equal LiveSet::AFTER_EVERY_GC, live_set.measure
    assert_equal 607, live_set.samples
    assert_equal [0, nil, nil], live_set.to_h.values_at(:majors, :unconfirmed, :note)
  end

  # A server whose major GCs all ran at boot: its live slots after minor GCs climb as old garbage waits for the
  # next major, which is not retention: undecided, and said why.
  def test_growth_after_minor_gcs_alone_is_not_called_growing
    boot = major_events(4, live: ->(i) { 100_000 + (50_000 * i) }, start: 0.1, every: 0.1)
    minors = climbing_minors
    agent = agent_records(61, old: ->(_i) { 1 }, start: 0.05)
    live_set = LiveSet.call(gc_run(events: (boot + minors).sort_by(&:t), agent: agent))

    assert_equal "inconclusive", live_set.verdict
    assert_equal LiveSet::AFTER_EVERY_GC, live_set.measure
    assert_equal [0, true], [live_set.majors, live_set.unconfirmed]
    assert_nil live_set.needed
  end

  # The same climb, with a few major GCs in the span that climb too: growing.
  def test_growth_after_minor_gcs_confirmed_by_the_few_majors_is_growing
    minors = climbing_minors
    majors = major_events(3, live: ->(i) { 320_000 + (60_000 * i) }, start: 5.0, every: 8.0)
    live_set = LiveSet.call(gc_run(events: (majors + minors).sort_by(&:t)))

    assert_equal ["growing", LiveSet::AFTER_EVERY_GC], [live_set.verdict, live_set.measure]
    assert_equal [3, nil], [live_set.majors, live_set.unconfirmed]
  end

  # With enough major GCs, old objects' saw-tooth at each interval is not consulted at all.
  def test_majors_decide_over_the_old_objects_saw_tooth
    events = major_events(8, live: ->(_i) { 300_000 }, every: 3.5)
    agent = agent_records(61, old: ->(i) { 280_000 + (i * 1_000) })
    live_set = LiveSet.call(gc_run(events: events, agent: agent))

    assert_equal ["plateaued", LiveSet::AFTER_MAJOR], [live_set.verdict, live_set.measure]
    assert_nil live_set.majors
  end

  private

  # 100 minor GCs whose live slots climb 2,000 a GC over 100 requests a second.
  def climbing_minors
    minor_events(100).each_with_index.map do |event, i|
      event.with(heap_live_slots: 300_000 + (2_000 * i), requests: (event.t * 100).round)
    end
  end
end
