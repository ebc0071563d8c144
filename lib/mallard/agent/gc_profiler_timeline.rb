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
    # most reads find the newest GC still sweeping (85% of them in an allocation-bound loop). It is written as far
    # as it got (see #read): one GC in each interval's line may have its pause cut short and no live slots.
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
      # What the run's boot line calls this source (RubyState's gc_timeline), and MALLARD_GC_EVENTS asks for.
      SOURCE = "profiler"
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

      # @return [String, nil] the line for the GCs since the previous call, valid until the next; nil when there were
      #   none (and none dropped)
      def build(time:, pid:, requests:)
        @clock.read
        count = GC.count
        return if count == @read_at_count

        @read_at_count = count
        return unless (records = read) # nil once the app disables the profiler

        dropped = dropped(count, records)
        return if records.empty? && dropped.zero?

        @line.open(time: time, pid: pid, requests: requests, dropped: dropped)
        write(records)
        @line.close
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
      end

      # The profiler's records, cleared at once, before any text is made: a GC that the line's own allocations
      # cause is then kept for the next read instead of cleared unread.
      #
      # Every read clears, even when the newest GC is still sweeping (most reads in a GC-heavy app find one so):
      # holding the list until a read finds every GC finished let it grow to thousands of records, which GC::Profiler
      # reallocates as it grows and raw_data turns into two Hashes each on every read — a megabyte of creep in 20 s
      # of a GC-heavy app, the very growth a soak is there to find. Such a GC is written as far as it got: its pause
      # up to the read, and no live slots (its heap figures are set only as its sweep ends).
      def read
        records = GC::Profiler.raw_data
        GC::Profiler.clear if records
        records
      end

      # GCs that GC.count saw before the records were read but that were never written: cleared by the app, or
      # between a read and its clear. Never more than were lost.
      def dropped(count, records)
        lost = count - @counted_from - @reported - records.size
        @reported += records.size + [lost, 0].max
        lost.positive? ? lost : 0
      end

      def write(records)
        records.each do |record|
          fill(record)
          @line.event(@event, 0)
        end
      end

      # The record in the run's layout (Run::GC_EVENT_FIELDS).
      def fill(record)
        flags = record[:GC_FLAGS]
        @event[0] = start_of(record)
        @event[1] = record[:GC_TIME] * 1000.0
        @event[3] = flags[:major_by] ? 1 : 0
        @event[4] = flags[:major_by]
        @event[5] = flags[:gc_by]
        @event[6] = record[:HEAP_TOTAL_OBJECTS].zero? ? nil : record[:HEAP_USE_SIZE] / @slot_size
      end

      # CLOCK_MONOTONIC time at which the record's GC began.
      def start_of(record)
        @clock.wall_at(record[:GC_INVOKE_TIME] + @cpu_base)
      end

      # The process's CPU clock less :GC_INVOKE_TIME: the CPU time Ruby had read when it set up its heap, which
      # Ruby does not expose. One minor GC measures it, once per process, in a forked child: a GC here, as the agent
      # starts before the app has loaded, changes how large the app's heap settles, and an allocation-bound app's
      # GC rate with it (measured in-process, the fragmenting fixture's heap settled at 142 pages against 151
      # without the agent, with twice the major GCs; from a child, 147 and 1.5 times: bench/README.md). The child's
      # CPU clock starts again from zero but keeps this process's reading, so the difference it measures holds
      # here, as in every forked child. Without a record (GC refused, no fork) the reading is taken as zero: a few
      # milliseconds of CPU early.
      def cpu_base
        reader, writer = IO.pipe
        # exit! whatever happens: the child must not run the app's at_exit handlers or flush its buffers.
        child = Process.fork do
          writer.write([measured_cpu_base].pack("E"))
        ensure
          Process.exit!(true)
        end
        writer.close
        reading = reader.read
        Process.wait(child)
        reading.bytesize == 8 ? reading.unpack1("E") : 0.0
      rescue NotImplementedError, SystemCallError
        0.0
      ensure
        reader&.close
        writer&.close
      end

      # Ruby finishes a pending sweep before it starts a GC, and that CPU comes before the GC's :GC_INVOKE_TIME: read
      # with a large heap still being swept, the offset came out 60 ms of CPU short and every GC was placed that much
      # early. So a pending sweep is finished first, by a minor GC of its own.
      def measured_cpu_base
        GC.start(full_mark: false) unless GC.latest_gc_info(:state) == :none
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
