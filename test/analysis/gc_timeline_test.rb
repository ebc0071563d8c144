# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# GC figures from per-GC events, and from GC.stat intervals alone (pauses then nil, and said so). What they mean in
# words is GcSentencesTest's.
class GcTimelineTest < Minitest::Test
  include GcRuns
  GcTimeline = Mallard::Analysis::GcTimeline

  def test_pauses_counts_and_causes_from_events
    events = (major_events(10, live: ->(i) { 100_000 + i }, pause: ->(i) { 10.0 + i }) +
              minor_events(90, pause: 1.0)).sort_by(&:t)
    gc = GcTimeline.call(gc_run(events: events, agent: agent_records(61, old: ->(_i) { 1 })))

    assert_equal [100, 90, 10], [gc.runs, gc.minor, gc.major]
    assert_equal [1.0, 19.0], [gc.pause_ms.p50, gc.pause_ms.max]
    assert_operator gc.pause_ms.p99, :>, gc.pause_ms.p50
    assert_equal [{ "oldgen" => 5, "nofree" => 5 }, { "newobj" => 45, "malloc" => 45 }, nil],
                 gc.to_h.values_at(:major_by, :minor_by, :causes)
  end

  def test_counts_by_cause_from_events
    events = (major_events(10, live: ->(i) { 100_000 + i }) + minor_events(90)).sort_by(&:t)
    gc = GcTimeline.call(gc_run(events: events))

    assert_equal({ "oldgen" => 5, "nofree" => 5 }, gc.major_by)
    assert_equal({ "newobj" => 45, "malloc" => 45 }, gc.minor_by)
    assert_equal "the agent's GC events", gc.source
  end

  # A server's GCs lost before its first agent record are not of the measured span, as its events are not.
  def test_gcs_the_timeline_lost_in_the_measured_span_are_counted
    drops = [Mallard::Run::GcDrop.new(t: 0.5, pid: 1, count: 2), Mallard::Run::GcDrop.new(t: 5.0, pid: 1, count: 3)]
    agent = agent_records(61, old: ->(_i) { 1 })

    assert_equal 3, GcTimeline.call(gc_run(events: minor_events(10), agent: agent, drops: drops)).dropped
    assert_equal 0, GcTimeline.call(gc_run(events: minor_events(10), agent: agent)).dropped
    assert_nil GcTimeline.call(gc_run(agent: agent)).dropped, "no timeline: nothing known lost"
  end

  # A source that leaves a field out writes null (GC::Profiler gives no longest step, old objects or pages): the
  # figures take what there is.
  def test_events_with_null_fields_still_count
    events = (minor_events(4) + major_events(4, live: ->(i) { 100_000 + i })).map do |event|
      event.with(max_pause_ms: nil, old_objects: nil, heap_allocated_pages: nil)
    end
    events[0] = events.first.with(pause_ms: nil)
    gc = GcTimeline.call(gc_run(events: events.sort_by(&:t)))

    assert_equal [8, 4, 4], [gc.runs, gc.minor, gc.major]
    assert_equal [5.0, 3.071], [gc.pause_ms.max, gc.pause_ms.mean]
    assert_equal "unmeasured", gc.major_time_vs_live_set.finding
  end

  def test_shares_of_wall_and_cpu_time
    # 600 ms of GC.stat time over 30 s of one process's wall time, and 15 s of its CPU (0.5 s per second)
    agent = agent_records(61, old: ->(_i) { 1 }, time_ms: ->(i) { 10 * i })
    gc = GcTimeline.call(gc_run(agent: agent))

    assert_in_delta 0.02, gc.wall_share, 1e-4
    assert_in_delta 0.04, gc.cpu_share, 1e-4
  end

  def test_without_events_pauses_are_nil_and_the_note_says_why
    gc = GcTimeline.call(gc_run(agent: agent_records(61, old: ->(_i) { 1 })))

    assert_equal [180, 120, 60], [gc.runs, gc.minor, gc.major] # GC.stat deltas over 60 intervals
    assert_nil gc.pause_ms.p50
    assert_nil gc.major_by
    assert_match(/per-GC timeline/, gc.note)
    assert_equal ["unmeasured", nil], gc.major_time_vs_live_set.to_h.values_at(:finding, :majors)
  end

  def test_major_gcs_that_take_longer_as_the_live_set_grows_are_said_to
    random = Random.new(3)
    events = major_events(20, live: ->(i) { 100_000 + (50_000 * i) }, pause: ->(i) { 5.0 + (2.0 * i) + random.rand })
    relation = GcTimeline.call(gc_run(events: events)).major_time_vs_live_set

    assert_equal "rising", relation.finding
    assert_operator relation.ci[0], :>, 0
    assert_operator relation.spearman, :>, 0.9
    assert_in_delta 4.0, relation.slope_ms_per_100k_slots, 0.3 # 2 ms per 50,000 slots
    assert_nil relation.sentence
  end

  def test_pauses_that_do_not_follow_the_live_set_are_no_relation
    random = Random.new(4)
    events = major_events(20, live: ->(i) { 100_000 + (50_000 * i) }, pause: ->(_i) { 5.0 + random.rand })
    relation = GcTimeline.call(gc_run(events: events)).major_time_vs_live_set

    assert_equal "no_relation", relation.finding
    assert_operator relation.ci[0], :<, 0
  end

  def test_nothing_recorded_inside_the_subject_is_nil
    assert_nil GcTimeline.call(gc_run(agent: [], events: nil))
  end

  # The Rails report that started this: 4 majors ranked perfectly. Chance does that 1 time in 12 (either way), so
  # nothing causal is said; and majors during boot, before the load, are not judged at all.
  def test_four_perfectly_ranked_majors_say_nothing_causal
    events = major_events(4, live: ->(i) { 100_000 + (50_000 * i) }, pause: ->(i) { 5.0 + i }, start: 2.0)
    relation = GcTimeline.call(gc_run(events: events)).major_time_vs_live_set

    assert_equal "no_relation", relation.finding
    assert_in_delta 1.0 / 12, relation.p_value, 1e-6
    assert_operator relation.ci[0], :<=, 0
  end

  def test_majors_before_the_load_started_are_left_out
    boot = major_events(6, live: ->(i) { 100_000 + (50_000 * i) }, pause: ->(i) { 5.0 + i }, start: 0.1, every: 0.1)
    steady = major_events(5, live: ->(i) { 500_000 + (50_000 * i) }, pause: ->(i) { 20.0 + i }, start: 2.0)
    agent = agent_records(62, old: ->(_i) { 1 }, start: 0.05) # the agent is up during boot
    boot_only = GcTimeline.call(gc_run(events: boot, agent: agent)).major_time_vs_live_set
    both = GcTimeline.call(gc_run(events: boot + steady, agent: agent)).major_time_vs_live_set

    assert_equal ["unmeasured", 0, 6], boot_only.to_h.values_at(:finding, :majors, :before_load)
    assert_equal ["rising", 5, 6], [both.finding, both.majors, both.before_load], "5 perfect majors: p = 1/60"
  end
end
