# frozen_string_literal: true

require_relative "../agent/mappings"

module Mallard
  module Probe
    # Reads the memory of a subject's whole process tree and appends it to the run's samples:
    # one "memory" record per process and one "total" record per tick.
    #
    # Each process's whole smaps too, at its first tick and every MAPPINGS_EVERY seconds: the memory ledger's stacks
    # and file-backed PSS (Agent::Mappings), read from outside the app. Read from inside, by the agent's thread, they
    # cost a busy Ruby 3.1 app a fifth of its CPU per request (Agent::Ledger says how); from here the app pays only
    # the kernel's walk of its page tables, which the summary takes every tick anyway.
    #
    # On those ticks each process's title too ($0: a server's processes say there what they are), for its role.
    #
    # The subject's memory cgroup too (CgroupMemory), at the first tick and every CGROUP_EVERY seconds: what a
    # container's OOM killer counts. A handful of small files, but the figures move slowly and every process of the
    # cgroup is in them, so a reading every few seconds says all they can.
    class Sampler
      MAPPINGS_EVERY = 5.0
      CGROUP_EVERY = 2.0

      # @param writer [#<<] where records go (a Run::JsonlWriter)
      # @param clock [#call] seconds since the run's start
      def initialize(root_pid:, writer:, clock:)
        @root_pid = root_pid
        @writer = writer
        @clock = clock
        @mapped_at = {}
        @cgroup = CgroupMemory.of(root_pid)
        @cgroup_at = nil
      end

      # @param extra [Hash] counters to store with the total (e.g. requests served so far)
      # @return [Hash, nil] the total record, nil when the whole tree is gone
      def sample(extra = {})
        t = @clock.call.round(3)
        cpus = ProcessTree.pids(@root_pid).to_h { |pid| [pid, CpuTime.process(pid)] }
        readings = cpus.filter_map { |pid, cpu_s| read(pid, t, cpu_s) }
        return if readings.empty?

        readings.each { |record| @writer << record }
        cgroup(t, readings.size)
        total = Run::TotalSample.record(time: t, readings: readings, **cpu(cpus), **extra)
        @writer << total
        total
      end

      private

      def cgroup(time, tree_processes)
        return unless @cgroup && (@cgroup_at.nil? || time - @cgroup_at >= CGROUP_EVERY)

        @cgroup_at = time
        @writer << Run::CgroupSample.record(time: time, reading: @cgroup.read, tree_processes: tree_processes)
      end

      # The subject's CPU (each process's as read for its own record, an exiting one's too), and the machine's and
      # mallard's own (the subject and the load tool included): what the rest of the machine did meanwhile tells a
      # quiet run from one with a noisy neighbour.
      def cpu(cpus)
        own = CpuTime.processes(ProcessTree.pids(Process.pid))
        { cpu_s: cpus.values.sum(&:to_f).round(3), own_cpu_s: own.round(3), machine_cpu_s: CpuTime.machine&.round(3) }
      end

      # On a mappings tick the whole smaps gives both the summary and the mappings: one walk of the app's page
      # tables, not two.
      def read(pid, time, cpu_s)
        files = ProcFiles.new(pid)
        smaps = files.smaps if mappings_due?(pid, time)
        reading = MemoryReading.parse(smaps || files.smaps_summary)
        return if reading.rss_kb.zero? # exiting: its memory is already released, the reading means nothing

        Run::ProcessSample.record(time: time, pid: pid, role: pid == @root_pid ? "main" : "child", memory: reading.to_h,
                                  cpu_s: cpu_s&.round(3), mappings: smaps ? mappings(pid, smaps, time) : {},
                                  title: (Text.scrub(files.cmdline.join(" ")) if smaps))
      rescue NotFound
        nil # exited between listing and reading: a worker restart, or the subject dying
      end

      def mappings_due?(pid, time) = !@mapped_at.key?(pid) || time - @mapped_at[pid] >= MAPPINGS_EVERY

      # Parsing a Rails worker's smaps (a megabyte) takes mallard tens of milliseconds, hence not every tick.
      def mappings(pid, smaps, time)
        @mapped_at[pid] = time
        Agent::Mappings.parse(smaps).slice(*Agent::Mappings::CARRIED, "file_pss_kb").transform_keys(&:to_sym)
      end
    end
  end
end
