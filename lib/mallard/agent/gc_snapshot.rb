# frozen_string_literal: true

module Mallard
  module Agent
    # The few GC.stat figures a memory timeline needs, read in one call.
    # GC.stat's keys differ between Ruby versions and GC builds, so a key is reported only when
    # the running Ruby has it: a missing figure is absent, never a made-up zero.
    module GcSnapshot
      KEYS = %i[
        count minor_gc_count major_gc_count heap_live_slots heap_available_slots heap_allocated_pages old_objects
        malloc_increase_bytes oldmalloc_increase_bytes total_allocated_objects total_freed_objects
      ].freeze

      # time_ms is always present so a reader can tell "no GC time on this Ruby" (nil) from a
      # missing record; GC.stat[:time] is in milliseconds where it exists (3.1 and later).
      def self.take(stat = GC.stat)
        snapshot = stat.slice(*KEYS)
        snapshot[:time_ms] = stat[:time]
        snapshot
      end
    end
  end
end
