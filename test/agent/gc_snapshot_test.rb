# frozen_string_literal: true

# The agent is self-contained, so its tests load only the agent, not the whole gem.
require "minitest/autorun"
require "mallard/agent/gc_snapshot"

class GcSnapshotTest < Minitest::Test
  GcSnapshot = Mallard::Agent::GcSnapshot

  def test_reports_the_listed_keys_this_ruby_has_and_gc_time
    snapshot = GcSnapshot.take

    assert_equal GcSnapshot::KEYS.select { |key| GC.stat.key?(key) } + [:time_ms], snapshot.keys
    snapshot.each_value { |value| assert_kind_of Integer, value } if GC.stat.key?(:time)
    assert_nil snapshot[:time_ms] unless GC.stat.key?(:time)
  end

  def test_counts_move_forward_across_a_collection
    before = GcSnapshot.take
    GC.start
    after = GcSnapshot.take

    assert_operator after[:count], :>, before[:count]
    assert_operator after[:major_gc_count], :>, before[:major_gc_count]
    assert_operator after[:total_allocated_objects], :>=, before[:total_allocated_objects]
  end

  # Another Ruby's GC.stat, with keys this one may not have and without others.
  def test_leaves_out_keys_the_ruby_lacks_and_gives_nil_gc_time_without_the_time_key
    stat = { count: 7, minor_gc_count: 5, major_gc_count: 2, heap_live_slots: 1000, weak_references_count: 3 }

    assert_equal({ count: 7, minor_gc_count: 5, major_gc_count: 2, heap_live_slots: 1000, time_ms: nil },
                 GcSnapshot.take(stat))
  end

  def test_gc_time_is_stat_time_in_milliseconds
    assert_equal 42, GcSnapshot.take({ count: 1, time: 42 })[:time_ms]
  end
end
