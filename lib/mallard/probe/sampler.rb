# frozen_string_literal: true

module Mallard
  module Probe
    # Reads the memory of a subject's whole process tree and appends it to the run's samples:
    # one "memory" record per process and one "total" record per tick.
    class Sampler
      # @param writer [#<<] where records go (a Run::JsonlWriter)
      # @param clock [#call] seconds since the run's start
      def initialize(root_pid:, writer:, clock:)
        @root_pid = root_pid
        @writer = writer
        @clock = clock
      end

      # @param extra [Hash] counters to store with the total (e.g. requests served so far)
      # @return [Hash, nil] the total record, nil when the whole tree is gone
      def sample(extra = {})
        t = @clock.call.round(3)
        readings = ProcessTree.pids(@root_pid).filter_map { |pid| read(pid, t) }
        return if readings.empty?

        readings.each { |record| @writer << record }
        total = totals(readings).merge(kind: "total", t: t, processes: readings.size, **extra)
        @writer << total
        total
      end

      private

      def read(pid, time)
        reading = MemoryReading.of(ProcFiles.new(pid))
        return if reading.rss_kb.zero? # exiting: its memory is already released, the reading means nothing

        { kind: "memory", t: time, pid: pid, role: pid == @root_pid ? "main" : "child", **reading.to_h }
      rescue NotFound
        nil # exited between listing and reading: a worker restart, or the subject dying
      end

      def totals(readings)
        %i[rss_kb pss_kb uss_kb swap_kb].to_h { |key| [key, readings.sum { |r| r[key] }] }
      end
    end
  end
end
