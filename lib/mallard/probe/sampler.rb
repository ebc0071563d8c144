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
        pids = ProcessTree.pids(@root_pid)
        readings = pids.filter_map { |pid| read(pid, t) }
        return if readings.empty?

        readings.each { |record| @writer << record }
        total = Run::TotalSample.record(time: t, readings: readings, **cpu(pids), **extra)
        @writer << total
        total
      end

      private

      # The subject's CPU, and the machine's and mallard's own (the subject and the load tool included): what
      # the rest of the machine did meanwhile tells a quiet run from one with a noisy neighbour.
      def cpu(pids)
        { cpu_s: CpuTime.processes(pids).round(3), own_cpu_s: CpuTime.processes(ProcessTree.pids(Process.pid)).round(3),
          machine_cpu_s: CpuTime.machine&.round(3) }
      end

      def read(pid, time)
        reading = MemoryReading.of(ProcFiles.new(pid))
        return if reading.rss_kb.zero? # exiting: its memory is already released, the reading means nothing

        Run::ProcessSample.record(time: time, pid: pid, role: pid == @root_pid ? "main" : "child", memory: reading.to_h)
      rescue NotFound
        nil # exited between listing and reading: a worker restart, or the subject dying
      end
    end
  end
end
