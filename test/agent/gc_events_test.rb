# frozen_string_literal: true

require "minitest/autorun"
require "json"
require "open3"
require "rbconfig"
require "timeout"

# mallard/gc_events_ext in a fresh Ruby process per case (test/fixtures/gc_events/ring_probe.rb), so the GCs
# counted are the probe's own, under a hook installed once.
class GcEventsTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  PROBE = File.join(ROOT, "test/fixtures/gc_events/ring_probe.rb")
  FIELDS = %i[t pause_ms max_pause_ms major major_by gc_by heap_live_slots old_objects heap_allocated_pages
              malloc_increase_bytes oldmalloc_increase_bytes].freeze
  RING_SIZE = 4096

  def setup
    skip "mallard/gc_events_ext is not built (rake compile)" unless
      File.file?(File.join(ROOT, "lib/mallard/gc_events_ext.#{RbConfig::CONFIG['DLEXT']}"))
  end

  def test_every_gc_is_reported_once_with_its_kind_and_cause
    result = probe(majors: 5, minors: 7, allocations: 200_000)
    events = result.fetch("events")

    assert_equal result["gcs"], events.size, "one event per GC"
    assert_operator events.size, :>, 13, "the allocations ran minor GCs of their own"
    assert_equal(result["major_gcs"], events.count { |event| event[:major] == 1 })
    assert_causes(events)
    assert_equal 7, events.count { |event| event[:major].zero? && event[:gc_by] == "method" } - 1,
                 "the 7 minor GC.start and the closing one"
    assert_equal [0, 0], result.values_at("dropped", "pending")
  end

  def test_events_are_in_time_order_with_positive_plausible_pauses_and_heap_figures
    result = probe(majors: 3, minors: 20, allocations: 100_000)
    events = result.fetch("events")

    starts = events.map { |event| event[:t] }
    assert_equal starts.sort, starts
    assert_operator starts.last, :<, result["now"]
    events.each { |event| assert_figures(event) }
    assert_plausible_against_gc_time(events.sum { |event| event[:pause_ms] }, result["time_ms"])
  end

  def test_gcs_past_the_ring_size_between_drains_are_counted_as_dropped
    result = probe(majors: 0, minors: RING_SIZE + 150, allocations: 0)

    assert_equal RING_SIZE, result["events"].size, "the ring keeps the oldest it has room for"
    assert_equal result["gcs"] - RING_SIZE, result["dropped"]
    assert_operator result["dropped"], :>=, 150
    assert_equal 0, result["pending"]
  end

  private

  def assert_causes(events)
    events.each do |event|
      assert_equal event[:major] == 1, !event[:major_by].nil?, event.inspect
      assert_includes %w[method newobj malloc], event[:gc_by], event.inspect
    end
  end

  def assert_figures(event)
    assert_operator event[:pause_ms], :>, 0, event.inspect
    assert_operator event[:max_pause_ms], :<=, event[:pause_ms] + 1e-9, event.inspect
    assert_operator event[:heap_live_slots], :>=, event[:old_objects], event.inspect
    assert_operator event[:heap_allocated_pages], :>, 0, event.inspect
  end

  # GC.stat[:time] (3.1+) is whole milliseconds of the same enter-to-exit spans, so the sums agree closely.
  def assert_plausible_against_gc_time(pause_ms, time_ms)
    return if time_ms.nil?

    assert_operator pause_ms, :>=, (time_ms * 0.5) - 2, "pauses #{pause_ms} ms, GC.stat time #{time_ms} ms"
    assert_operator pause_ms, :<=, (time_ms * 1.5) + 2, "pauses #{pause_ms} ms, GC.stat time #{time_ms} ms"
  end

  def probe(majors:, minors:, allocations:)
    output, status = Timeout.timeout(60) do
      Open3.capture2(RbConfig.ruby, "-I#{File.join(ROOT, 'lib')}", PROBE, majors.to_s, minors.to_s, allocations.to_s)
    end
    assert_predicate status, :success?
    JSON.parse(output).tap do |result|
      result["events"] = result["events"].map { |fields| FIELDS.zip(fields).to_h }
    end
  end
end
