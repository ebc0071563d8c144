# frozen_string_literal: true

# The agent is self-contained, so its tests load only the agent (and the run model the lines are read by).
require "minitest/autorun"
require "json"
require "open3"
require "rbconfig"
require "tmpdir"
require "mallard/agent/gc_profiler_timeline"
require "mallard/run/records"
require_relative "../support/allocation_counting"

# The per-GC timeline from GC::Profiler, on real GCs of this process.
class AgentGcProfilerTimelineTest < Minitest::Test
  include AllocationCounting

  GcProfilerTimeline = Mallard::Agent::GcProfilerTimeline
  LIB = File.expand_path("../../lib", __dir__)
  PROBE = File.expand_path("../fixtures/gc_events/placement_probe.rb", __dir__)

  def setup
    GC::Profiler.disable # another test's timeline: this one starts its own
    assert_nil GcProfilerTimeline.start
    @origin = now - 10
    @timeline = GcProfilerTimeline.new(origin: @origin)
    @timeline.build(time: 0, pid: 1, requests: 0) # whatever the test process ran before
  end

  def teardown
    GC::Profiler.disable
    GC::Profiler.clear
  end

  def test_each_gc_is_written_once_with_its_kind_and_cause
    3.times { GC.start }
    2.times { GC.start(full_mark: false) }
    hash, events = line(requests: 42)

    assert_equal [%w[kind t pid requests dropped events], 0], [hash.keys, hash["dropped"]]
    assert_equal [[Process.pid, 42]], events.map { |event| [event.pid, event.requests] }.uniq
    causes = events.map { |event| [event.major, event.major_by, event.gc_by] }.tally
    assert_equal({ [1, "force", "method"] => 3, [0, nil, "method"] => 2 }, causes)
    assert(events.all? { |event| event.pause_ms.positive? }, events.inspect)
  end

  def test_the_live_slots_after_each_gc_and_null_for_what_the_profiler_lacks
    GC.start
    live = GC.stat(:heap_live_slots)
    events = line(requests: 0).last

    assert_in_delta live, events.last.heap_live_slots, 1_000, "live slots after a GC swept at once"
    nulls = %i[max_pause_ms old_objects heap_allocated_pages malloc_increase_bytes oldmalloc_increase_bytes]
    assert_equal([nil] * nulls.size, nulls.map { |field| events.last[field] })
  end

  # GC::Profiler alone keeps every record for as long as it runs; each line takes them out, even when the newest GC
  # is still sweeping (holding the list for it let it grow by a megabyte in a GC-heavy soak).
  def test_the_profiler_holds_no_more_than_one_intervals_gcs
    written = Array.new(50) do
      19.times { GC.start(full_mark: false) }
      GC.start(full_mark: false, immediate_sweep: false)
      line(requests: 0).last.size
    end

    assert_equal [20], written.uniq
    assert_empty GC::Profiler.raw_data
  end

  # The profiler's start times are CPU time; each GC lands within the interval it happened in, as far into it as
  # the process's CPU had gone when it began: about a third and two thirds here, after the first and second of three
  # equal burns, and exactly where the process's CPU clock stood. Not against the wall clock: on a busy machine the
  # process gets the CPU unevenly, and the agent can only take it as spent evenly within an interval. In a fresh
  # Ruby (test/fixtures/gc_events/placement_probe.rb): in this process, late in a fresh-clone run, a GC was placed
  # 22 ms of CPU early, for a cause not found (the forked child's clock offset agreed with one measured in the
  # process to 0.5 ms, with a large heap and busy threads alike).
  def test_gcs_are_placed_on_the_wall_clock_between_the_lines
    assert_gcs_placed_by_cpu
  end

  # Ruby finishes a pending sweep before it starts the next GC, and counts that CPU before the GC's start: a timeline
  # created while a large heap was still being swept (a fresh-clone run placed a GC at 0.23 of its interval instead
  # of 0.33) must not take that sweep for the profiler's clock offset.
  def test_a_timeline_created_during_a_pending_sweep_places_gcs_alike
    assert_gcs_placed_by_cpu("pending-sweep")
  end

  # The offset is measured by a GC in a forked child: one here, as the agent starts before the app has loaded, moved
  # the fragmenting fixture's heap from 151 to 142 pages and doubled its major GCs (bench/README.md).
  def test_measuring_the_clock_offset_runs_no_gc_in_the_process
    GC.start # a heap with room, so that nothing the timeline allocates sets one off
    count = GC.count
    GcProfilerTimeline.new(origin: @origin)

    assert_equal count, GC.count
  end

  def assert_gcs_placed_by_cpu(*args)
    out, err, status = Open3.capture3({ "RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil }, RbConfig.ruby, "-I#{LIB}", PROBE,
                                      *args)
    assert status.success?, err
    placement = JSON.parse(out)

    assert_equal 2, placement["placed"].size, out
    placement["expected"].zip(placement["placed"]).each do |expected, placed|
      assert_in_delta expected, placed, 0.03, out
    end
  end

  # Read while its sweep goes on, a GC is written as far as it got: placed when it began, without live slots.
  # A lazy sweep's first step stops once it has found about 2,048 free slots (gc.c, gc_sweep_step), so in a heap
  # without that many it ends at once: 100,000 objects made and freed first leave the heap far more.
  def test_a_gc_still_sweeping_is_written_as_far_as_it_got
    100_000.times { Object.new }
    GC.start
    line(requests: 0)
    GC.start(full_mark: false, immediate_sweep: false)
    began = now - @origin
    assert_equal :sweeping, GC.latest_gc_info(:state), "the GC swept the whole heap in its first step"

    events = line(requests: 0).last

    assert_equal([[0, nil]], events.map { |event| [event.major, event.heap_live_slots] })
    assert_in_delta began, events.first.t, 0.05
    assert_empty GC::Profiler.raw_data
  end

  def test_no_line_when_there_was_no_gc
    GC.start
    @timeline.build(time: 1.0, pid: 1, requests: nil)

    assert_nil @timeline.build(time: 1.0, pid: 1, requests: nil)
  end

  # Read while the app runs minor GCs: the profiler's own list of records is the one array made.
  def test_building_a_line_makes_one_array
    counts = Array.new(3) do
      20.times { GC.start(full_mark: false) }
      arrays_made { @timeline.build(time: 1.0, pid: 1, requests: 7) }
    end

    assert_equal 1, counts.min, counts.inspect
  end

  # GCs the profiler's records lost (here cleared by someone else) are counted, never written twice.
  def test_gcs_cleared_before_they_were_read_are_dropped
    3.times { GC.start(full_mark: false) }
    GC::Profiler.clear
    GC.start(full_mark: false)
    hash, events = line(requests: 0)

    assert_equal [3, 1], [hash["dropped"], events.size]
  end

  def test_after_fork_the_parents_gcs_are_forgotten
    GC.start
    reader, writer = IO.pipe
    pid = fork do
      @timeline.after_fork
      before = @timeline.build(time: 1.0, pid: 1, requests: nil)
      GC.start(full_mark: false)
      writer.write([before, JSON.parse(@timeline.build(time: 1.0, pid: 1, requests: nil))["events"].size].to_json)
      exit!(0)
    end
    writer.close

    assert_equal [nil, 1], JSON.parse(reader.read)
    Process.wait(pid)
  end

  # The app's own profiler records are the app's: the agent leaves them alone and says why.
  def test_a_profiler_the_app_enabled_is_left_alone
    Dir.mktmpdir do |dir|
      enabler = File.join(dir, "enable_profiler.rb")
      File.write(enabler, "GC::Profiler.enable\n")
      env = { "MALLARD_AGENT_OUT" => File.join(dir, "agent.jsonl"), "MALLARD_GC_EVENTS" => "profiler",
              "RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil }
      out, err, = Open3.capture3(env, RbConfig.ruby, "-I#{LIB}", "-r#{enabler}", "-rmallard/agent", "-e",
                                 "GC.start; GC.start; p GC::Profiler.raw_data.size")

      assert_match(/per-GC timing is unavailable \(GC::Profiler is already enabled/, err)
      assert_operator Integer(out), :>=, 2
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
