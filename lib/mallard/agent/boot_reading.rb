# frozen_string_literal: true

module Mallard
  module Agent
    # One reading of this process's memory, as the boot probe takes it at the start and the end of each require.
    #
    # Every part is cheap (about 20 µs in all) and none runs a GC: a boot reads it ~5,000 times, and a GC before
    # each reading would change the boot it measures (a minor GC at every require of a Rails 6.1 app ended at
    # 76 MB RSS where the same boot without them ends at 83 MB). RSS is a high-water mark that a GC hardly lowers,
    # so a require's RSS delta is what it added; its heap and malloc deltas include garbage not yet collected,
    # which the probe's two full-GC readings (before the first require, after the last) do not.
    #
    # It lives with the agent, not in boot_probe/: the agent's memory ledger (Ledger) takes the same reading inside
    # the app, so boot and soak split memory alike.
    class BootReading
      # The order of a reading's figures in its JSON line (BootProbe::Output) and in Run::BootReader.
      FIELDS = %w[objects rss file heap malloc live].freeze
      STATM_BYTES = 256
      # glibc's mallinfo2 walks every free chunk of every arena: microseconds on a fresh heap, milliseconds on a
      # fragmented one (8.5 ms with 100,000 free chunks). One reading slower than this turns malloc off for the
      # requires that follow; the whole boot's readings keep it.
      SLOW_MALLOC_S = 0.0005

      attr_reader :malloc_stopped, :page_size

      def initialize(malloc: MallocStats)
        @malloc = malloc
        @statm = File.open("/proc/self/statm")
        @buffer = String.new(capacity: STATM_BYTES)
        @page_size = detect_page_size
        @heap_bytes = heap_measure
        @page_bytes = GC::INTERNAL_CONSTANTS[:HEAP_PAGE_SIZE] if heap_pages_in_malloc?
      end

      # Writes FIELDS into frame from offset: objects allocated so far (read first, see BootProbe::Hook), RSS and its
      # file-backed part in bytes, bytes in live Ruby slots, bytes malloc has handed out beyond Ruby's heap pages
      # (nil where the allocator gives no reading), live slots. Into the caller's array, parsing statm byte by
      # byte: a reading allocates nothing (BootProbe::Hook says why that matters).
      def take(frame, offset)
        read_figures(frame, offset)
        frame[offset + 4] = @malloc_stopped ? nil : timed_malloc_bytes
        frame
      end

      # A reading as an Array, malloc included however slow (the probe's start and end lines, the ledger's).
      # in_use: the allocator's bytes in use when the caller has just read them (MallocStats.reading): glibc's
      # reading walks every free chunk, so it is taken once.
      def to_a(in_use = @malloc.in_use)
        reading = Array.new(FIELDS.size)
        read_figures(reading, 0)
        reading[4] = malloc_bytes(in_use)
        reading
      end

      private

      # Every figure but malloc's.
      def read_figures(frame, offset)
        frame[offset] = GC.stat(:total_allocated_objects)
        @statm.pread(STATM_BYTES, 0, @buffer)
        frame[offset + 1] = field(2) * @page_size
        frame[offset + 2] = field(3) * @page_size
        frame[offset + 3] = @heap_bytes.call
        frame[offset + 5] = GC.stat(:heap_live_slots)
      end

      # The number-th space-separated field of statm (from 1): resident pages are the second, those backed by a
      # file or shared memory the third.
      def field(number)
        index = 0
        (number - 1).times { index = @buffer.index(" ", index) + 1 }
        value = 0
        while (byte = @buffer.getbyte(index)) && byte >= 48 && byte <= 57
          value = (value * 10) + byte - 48
          index += 1
        end
        value
      end

      def timed_malloc_bytes
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        bytes = malloc_bytes(@malloc.in_use)
        took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
        @malloc_stopped = format("one reading took %.1f ms", took * 1000) if took > SLOW_MALLOC_S
        bytes
      end

      def malloc_bytes(in_use)
        return in_use unless in_use && @page_bytes

        in_use - (GC.stat(:heap_allocated_pages) * @page_bytes)
      end

      # Ruby maps its heap pages directly (mmap) wherever a system page fits in one (gc.c's HEAP_PAGE_ALLOC_USE_MMAP:
      # 3.1's 16 KiB pages and 3.2's 64 KiB ones, on 4 KiB system pages), and takes them from posix_memalign, where
      # malloc counts them, only where it does not. Measured on 3.1: 78 MB of new heap pages grew mallinfo2's count
      # by none of it, and subtracting them from malloc's count left 13 MB of a Rails app's RSS unexplained.
      def heap_pages_in_malloc?
        GC::INTERNAL_CONSTANTS[:HEAP_PAGE_SIZE].to_i < @page_size
      end

      # Live slots times slot size, per size pool where the Ruby counts live slots per pool (3.3+: allocated
      # minus freed); 3.2 has pools but counts live slots only overall, so its figure uses the smallest slot
      # size and is a lower bound; 3.1 has one slot size.
      def heap_measure
        pools = GC.respond_to?(:stat_heap) ? GC.stat_heap : {}
        if pools.values.all? { |pool| pool.key?(:total_freed_objects) } && pools.any?
          sizes = pools.transform_values { |pool| pool[:slot_size] }
          return -> { sizes.sum { |index, size| pool_live(index) * size } }
        end

        slot = pools.dig(0, :slot_size) || GC::INTERNAL_CONSTANTS[:RVALUE_SIZE]
        -> { GC.stat(:heap_live_slots) * slot }
      end

      def pool_live(index)
        GC.stat_heap(index, :total_allocated_objects) - GC.stat_heap(index, :total_freed_objects)
      end

      # statm counts pages; VmRSS in status says how big they are.
      def detect_page_size
        @statm.pread(STATM_BYTES, 0, @buffer)
        resident = field(2)
        rss_kb = File.read("/proc/self/status")[/^VmRSS:\s*(\d+)/, 1].to_i
        size = (rss_kb * 1024.0 / resident)
        [4096, 16_384, 65_536].min_by { |candidate| (candidate - size).abs }
      end
    end
  end
end
