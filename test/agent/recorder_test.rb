# frozen_string_literal: true

require "minitest/autorun"
require "json"
require "tmpdir"
require "mallard/agent/recorder"
require_relative "../support/allocation_counting"

class RecorderTest < Minitest::Test
  include AllocationCounting

  def setup
    @recorder = Mallard::Agent::Recorder.new(path: File::NULL, sample_cap: 4)
  end

  def taken
    JSON.parse(@recorder.take)
  end

  # The request path runs inside the app: an allocation there would be the agent's garbage in the app's heap.
  def test_recording_a_request_allocates_nothing_below_or_past_the_cap
    counts = Array.new(5) do
      @recorder.take # a new interval: its first 4 requests go below the cap, the other 100 past it
      allocations { 104.times { |i| @recorder.record(0.5, i.even? ? nil : 1.25, 3) } }
    end

    assert_equal 0, counts.min, counts.inspect
  end

  # The agent thread writes while the app runs minor GCs, so whatever it holds gets promoted, and promoted garbage
  # stays until a major GC: per-interval arrays made a steady Puma app's RSS creep by ~1 MB per 100k requests. Only
  # each number's text is made, and it is garbage as soon as it is appended.
  def test_taking_a_record_builds_no_arrays
    recorder = Mallard::Agent::Recorder.new(path: File::NULL)
    counts = Array.new(3) do
      600.times { recorder.record(0.5, nil, 1) }
      arrays_made { recorder.take }
    end

    assert_operator counts.min, :<=, 2, counts.inspect
  end

  def test_a_record_is_one_json_line_with_the_requests_of_its_interval
    @recorder.record(0.123456, 2.5, 7)
    @recorder.record(1.0, nil, 1)
    line = @recorder.take
    record = JSON.parse(line)

    assert line.end_with?("}\n")
    assert_equal 1, line.count("\n")
    assert_equal %w[kind t pid gc requests in_app_ms body_ms chunks], record.keys
    assert_equal [0.123, 1.0], record["in_app_ms"]
    assert_equal [2.5, nil], record["body_ms"]
    assert_equal [7, 1], record["chunks"]
    assert_equal Process.pid, record["pid"]
    assert_kind_of Integer, record.dig("gc", "count")
  end

  # The buffers swap on every take: a record must hold its own interval's requests, never a stale one's.
  def test_each_record_holds_only_what_came_after_the_one_before
    3.times { |i| @recorder.record(i.to_f, nil, i) }
    assert_equal [0, 1, 2], taken["chunks"]

    @recorder.record(9.0, nil, 9)
    assert_equal [9], taken["chunks"]
    assert_equal [], taken["chunks"]
    assert_equal 4, taken["requests"], "requests is the running count"
  end

  def test_past_the_cap_a_record_says_how_many_requests_it_sampled
    10.times { |i| @recorder.record(1.0, nil, i) }
    record = taken

    assert_equal 10, record["requests"]
    assert_equal 4, record["requests_sampled"]
    assert_equal 4, record["chunks"].size
    assert_equal record["chunks"].uniq, record["chunks"], "a reservoir holds each request once"
    refute taken.key?("requests_sampled")
  end

  def test_until_the_first_record_every_request_is_measured
    assert(Array.new(500) { @recorder.measure? }.all?)
  end

  # The agent's cost is in measuring a request, so a busy process has a random sample measured, about
  # MEASURED_PER_INTERVAL an interval at the previous interval's rate, and every request counted.
  def test_after_a_busy_interval_a_random_sample_is_measured_and_every_request_counted
    recorder = Mallard::Agent::Recorder.new(path: File::NULL)
    5000.times { recorder.record(0.5, nil, 1) if recorder.measure? }
    recorder.take
    measured = (0...5000).select do
      next false unless recorder.measure?

      recorder.record(0.5, nil, 1)
      true
    end
    record = JSON.parse(recorder.take)

    assert_equal 10_000, record["requests"]
    assert_includes 30..75, measured.size
    assert_equal measured.size, record["chunks"].size
    assert_operator measured.each_cons(2).map { |a, b| b - a }.uniq.size, :>, 5, "gaps drawn at random"
  end

  # Both ways: after 500 requests in an interval, about one in ten is measured and the rest are counted.
  def test_deciding_whether_to_measure_allocates_nothing
    500.times { @recorder.record(0.5, nil, 1) }
    @recorder.take
    counts = Array.new(5) { allocations { 1000.times { @recorder.measure? } } }

    assert_equal 0, counts.min, counts.inspect
  end

  def test_flush_appends_a_line_per_interval
    Dir.mktmpdir do |dir|
      recorder = Mallard::Agent::Recorder.new(path: File.join(dir, "agent.jsonl"))
      recorder.record(0.5, nil, 1)
      2.times { recorder.flush }

      lines = File.readlines(File.join(dir, "agent.jsonl")).map { |line| JSON.parse(line) }
      assert_equal([[1], []], lines.map { |line| line["chunks"] })
    end
  end

  # On Ruby 3.1 a millisecond of the agent's own thread's work beside busy app threads could cost the app far more
  # (Recorder says why), so under load the request that ends past due writes the record, ledger and all.
  def test_under_load_the_requests_write_the_records
    takers = with_ledger_takers(interval: 0.1) do |recorder|
      60.times do
        recorder.record(0.5, nil, 1)
        sleep 0.005
      end
    end

    assert_operator takers.count(Thread.current), :>=, 2, takers.inspect
    assert_operator takers.count(Thread.current), :>, takers.size / 2, "most records come from the requests"
  end

  def test_an_idle_process_still_gets_its_records_from_the_background_thread
    takers = with_ledger_takers(interval: 0.05) { sleep 0.4 }

    assert_operator takers.size, :>=, 3, takers.inspect
    refute_includes takers, Thread.current
  end

  private

  # The threads that took the ledger's readings while the block ran with a started recorder.
  def with_ledger_takers(interval:)
    takers = Queue.new
    ledger = Object.new
    ledger.define_singleton_method(:take) { |*| (takers << Thread.current) && nil }
    Dir.mktmpdir do |dir|
      recorder = Mallard::Agent::Recorder.new(path: File.join(dir, "agent.jsonl"), interval: interval, ledger: ledger)
      recorder.start
      yield recorder
      Array.new(takers.size) { takers.pop } # before stop, whose final record is always the stopping thread's
    ensure
      recorder&.stop
    end
  end

  # What the block allocated, counted process-wide: the test process has other threads (Timeout's, process
  # waiters), so callers take the least of a few tries.
  def allocations
    before = GC.stat(:total_allocated_objects)
    yield
    GC.stat(:total_allocated_objects) - before
  end
end
