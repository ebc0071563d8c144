# frozen_string_literal: true

require_relative "cpu_wall_clock"
require_relative "gc_line"

module Mallard
  module Agent
    # The agent's per-GC timeline from GC::Profiler, for Rubies before 3.3: there any internal GC event hook (what
    # GcTimeline's ring is filled by) sends every allocation through the GC's slow path (ruby/ruby#8378), while
    # GC::Profiler only does its bookkeeping inside each GC. It is the same interface as GcTimeline, and writes the
    # same "gc" lines (GcLine).
    #
    # GC::Profiler keeps a record of every GC for as long as it is enabled, so each interval its records are read
    # (GC::Profiler.raw_data) and cleared: what it holds is one interval's GCs, whatever the run length. raw_data
    # makes two Hashes per GC; they are garbage before the next minor GC can promote them, and nothing read is kept
    # past the interval but the start time of a GC still sweeping.
    #
    # A GC's record is complete only once its sweep ends, and a lazy sweep goes on between the app's allocations:
    # most reads find the newest GC still sweeping (85% of them in an allocation-bound loop). Clearing then would
    # lose the rest of its pause and its heap figures, so the finished records are written and the list is kept
    # until a read finds them all finished, or HOLD_LIMIT of them (as many as GcTimeline's ring): each read makes
    # Hashes for all of them again, a few hundred in a GC-heavy app.
    #
    # What a record gives (Ruby 3.1's gc.c, gc_profile_record_get and the gc_prof_* functions it reads; 3.3 and
    # 3.4 are the same):
    # - :GC_INVOKE_TIME: when the GC began, as CPU time of the whole process since Ruby set up its heap
    #   (getrusage_time() less objspace->profile.invoke_time), not wall time: see #cpu_base and CpuWallClock;
    # - :GC_TIME: CPU seconds of the GC's first marking step and of each of its sweeping steps. Later steps of
    #   an incremental major GC's marking are not counted, and a pause is CPU, not wall, time;
    # - :GC_FLAGS: gc_info_decode of the GC's reason: :major_by (nil for a minor GC) and :gc_by, as
    #   GC.latest_gc_info gives them;
    # - :HEAP_USE_SIZE: at the end of the GC's sweep, the objects allocated before it began less all ever freed,
    #   times the base slot size: the live slots right after it, but for objects allocated while it swept lazily.
    # The longest step, old objects, heap pages after the GC and the malloc counters are not there: null.
    class GcProfilerTimeline
      # Records GC::Profiler may hold while the newest GC is still sweeping; past it they are cleared anyway.
      HOLD_LIMIT = 4_096
      NOT_OURS = "GC::Profiler is already enabled in this process, and reading it every interval would clear the " \
                 "records of whoever enabled it"

      class << self
        # Enables GC::Profiler, unless someone else has.
        # @return [String, nil] why there is no per-GC timeline from it; nil when it runs
        def start
          return NOT_OURS if GC::Profiler.enabled?

          GC::Profiler.enable
          nil
        end
      end

      # @param origin [Float] the CLOCK_MONOTONIC value the run's t counts from
      def initialize(origin:)
        @line = GcLine.new(origin: origin)
        @event = Array.new(GcLine::FIELDS)
        @clock = CpuWallClock.new
        @slot_size = slot_size
        @cpu_base = cpu_base
        restart
      end

      # @return [String, nil] the line for the GCs finished since the previous call, valid until the next; nil when
      #   there were none (and none dropped)
      def build(time:, pid:, requests:)
        @clock.read
        count = GC.count
        return unless news?(count)

        @read_at_count = count
        return unless (records = read) # nil once the app disables the profiler

        dropped = dropped(count, records)
        return if @finished == @emitted && dropped.zero?

        @line.open(time: time, pid: pid, requests: requests, dropped: dropped)
        write(records)
        @reported += dropped
        @line.close
      ensure
        settle(records) if records
      end

      # In a forked child the profiler holds the parent's GCs, and the CPU clock starts again.
      def after_fork
        restart
      end

      private

      def restart
        GC::Profiler.clear
        @clock.reset
        @counted_from = @read_at_count = GC.count
        @reported = 0 # GCs since @counted_from written as events or as dropped
        @emitted = 0 # records at the head of the profiler's list already written
        @sweeping_t = nil # when the newest record's GC, still sweeping at a read, began
      end

      # A GC since the last read, or the end of the sweep of the one still sweeping then. Asked without allocating.
      def news?(count)
        count != @read_at_count || (@sweeping_t && GC.latest_gc_info(:state) == :none)
      end

      # The profiler's records, cleared at once when all are finished (or too many wait): before any text is made,
      # so that a GC the line's own allocations cause is kept for the next read instead of cleared unread. Sets
      # @finished, how many lead the list finished: a record's heap figures are set as its GC's sweep ends, so only
      # the newest can lack them.
      def read
        return unless (records = GC::Profiler.raw_data)

        last = records.last
        @finished = last && last[:HEAP_TOTAL_OBJECTS].zero? ? records.size - 1 : records.size
        @cleared = @finished == records.size || records.size > HOLD_LIMIT
        GC::Profiler.clear if @cleared
        records
      end

      # GCs that GC.count saw before the records were read but that were never written nor are still held: cleared
      # while still sweeping (HOLD_LIMIT), between a read and its clear, or by the app. Never more than were lost.
      def dropped(count, records)
        if @finished < @emitted # the list is not the one written from: the app cleared the profiler
          @emitted = 0
          @sweeping_t = nil
        end
        held = records.size - @finished
        lost = count - @counted_from - @reported - (@finished - @emitted) - held
        lost.positive? ? lost : 0
      end

      def write(records)
        @emitted.upto(@finished - 1) do |index|
          fill(records[index], index == @emitted ? @sweeping_t : nil)
          @line.event(@event, 0)
        end
        @reported += @finished - @emitted
        @sweeping_t = nil if @finished > @emitted
        @emitted = @finished
      end

      # The record in the run's layout (Run::GC_EVENT_FIELDS); began: its start if already placed.
      def fill(record, began)
        flags = record[:GC_FLAGS]
        @event[0] = began || start_of(record)
        @event[1] = record[:GC_TIME] * 1000.0
        @event[3] = flags[:major_by] ? 1 : 0
        @event[4] = flags[:major_by]
        @event[5] = flags[:gc_by]
        @event[6] = record[:HEAP_USE_SIZE] / @slot_size
      end

      # After a clear the list starts again (a GC still sweeping past HOLD_LIMIT is lost, and counted as dropped by
      # a later line). Otherwise the GC still sweeping is placed now, while its start lies in the interval just
      # read: its record keeps it, but the next read's interval will not hold it.
      def settle(records)
        if @cleared
          @emitted = 0
          @sweeping_t = nil
        elsif !@sweeping_t
          @sweeping_t = start_of(records[@emitted])
        end
      end

      # CLOCK_MONOTONIC time at which the record's GC began.
      def start_of(record)
        @clock.wall_at(record[:GC_INVOKE_TIME] + @cpu_base)
      end

      # The process's CPU clock less :GC_INVOKE_TIME: the CPU time Ruby had read when it set up its heap, which
      # Ruby does not expose. One minor GC measures it, once per process: a forked child's CPU clock starts again
      # from zero, but the child keeps its parent's reading, so the difference holds in every child too. Without a
      # record (GC refused) the reading is taken as zero: a few milliseconds of CPU early.
      def cpu_base
        GC::Profiler.clear
        before = @clock.cpu_now
        GC.start(full_mark: false)
        record = GC::Profiler.raw_data&.first
        record ? before - record[:GC_INVOKE_TIME] : 0.0
      end

      # What gc.c multiplies live objects by for :HEAP_USE_SIZE: sizeof(RVALUE) to 3.3, BASE_SLOT_SIZE from 3.4.
      def slot_size
        constants = GC::INTERNAL_CONSTANTS
        constants[:RVALUE_SIZE] || (constants.fetch(:BASE_SLOT_SIZE) + constants.fetch(:RVALUE_OVERHEAD, 0))
      end
    end
  end
end
