# frozen_string_literal: true

# The agent is self-contained, so its tests load only the agent (and the run model the lines are read by).
require "minitest/autorun"
require "json"
require "tmpdir"
require "mallard/agent/gc_timeline"
require "mallard/agent/recorder"
require "mallard/run/records"
require_relative "../support/allocation_counting"

class AgentGcTimelineTest < Minitest::Test
  include AllocationCounting

  GcTimeline = Mallard::Agent::GcTimeline

  def setup
    reason = GcTimeline.start
    skip "no per-GC timeline here: #{reason}" if reason
    @origin = now - 10
    @timeline = GcTimeline.new(origin: @origin)
    @timeline.build(time: 0, pid: 1, requests: 0) # whatever the test process ran before
  end

  def test_a_line_holds_each_gc_since_the_previous_one_as_run_gc_events
    began = now - @origin
    3.times { GC.start }
    2.times { GC.start(full_mark: false) }
    hash, events = line(requests: 42)

    assert_equal [%w[kind t pid requests dropped events], 0], [hash.keys, hash["dropped"]]
    assert(events.all? { |event| event.t.between?(began, hash["t"]) }, events.inspect)
    assert_equal [[Process.pid, 42]], events.map { |event| [event.pid, event.requests] }.uniq
    causes = events.map { |event| [event.major_by, event.gc_by] }.tally
    assert_equal({ %w[force method] => 3, [nil, "method"] => 2 }, causes)
  end

  # The ring's events, the line's and the run model's are one layout.
  def test_the_ring_the_line_and_the_run_model_agree_on_the_fields
    assert_equal [Mallard::Run::GC_EVENT_FIELDS.size] * 2,
                 [Mallard::GcEvents::EVENT_FIELDS, Mallard::Agent::GcLine::FIELDS]
  end

  def test_no_line_when_there_was_no_gc
    GC.start
    @timeline.build(time: 1.0, pid: 1, requests: nil)

    assert_nil @timeline.build(time: 1.0, pid: 1, requests: nil)
  end

  # Built while the app runs minor GCs, like the interval record: nothing but each number's text may be made.
  def test_building_a_line_makes_no_arrays
    counts = Array.new(3) do
      20.times { GC.start(full_mark: false) }
      arrays_made { @timeline.build(time: 1.0, pid: 1, requests: 7) }
    end

    assert_equal 0, counts.min, counts.inspect
  end

  # The ring's side of it: moving events into a preallocated buffer makes no object at all.
  def test_draining_into_a_preallocated_buffer_allocates_nothing
    buffer = Array.new(64 * Mallard::GcEvents::EVENT_FIELDS)
    counts = Array.new(3) do
      10.times { GC.start(full_mark: false) }
      before = GC.stat(:total_allocated_objects)
      Mallard::GcEvents.drain(buffer)
      GC.stat(:total_allocated_objects) - before
    end

    assert_equal 0, counts.min, counts.inspect
  end

  def test_after_fork_the_parents_gcs_are_forgotten
    GC.start
    @timeline.after_fork

    assert_nil @timeline.build(time: 1.0, pid: 1, requests: nil)
  end

  def test_the_recorder_appends_the_gc_line_after_the_interval_record
    Dir.mktmpdir do |dir|
      path = File.join(dir, "agent.jsonl")
      recorder = Mallard::Agent::Recorder.new(path: path, origin: @origin, gc_timeline: @timeline)
      recorder.record(0.5, nil, 1)
      GC.start
      recorder.flush

      lines = File.readlines(path).map { |line| JSON.parse(line) }
      assert_equal([%w[agent 1], %w[gc 1]], lines.map { |line| [line["kind"], line["requests"].to_s] })
    end
  end

  private

  def line(requests:)
    hash = JSON.parse(@timeline.build(time: now - @origin, pid: Process.pid, requests: requests))
    [hash, Mallard::Run.gc_events(hash)]
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
