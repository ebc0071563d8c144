# frozen_string_literal: true

require_relative "../errors"
require_relative "../text"
require_relative "../probe/proc_files"
require_relative "../probe/proc_stat"
require_relative "../probe/process_tree"
require_relative "../probe/memory_reading"
require_relative "../probe/cgroup_memory"
require_relative "../probe/puma_tree"
require_relative "../cpus/layout"
require_relative "../allocators/detection"
require_relative "readings"
require_relative "request_totals"
require_relative "exposition"

module Mallard
  module Exporter
    # What the serving process gathers at each scrape: its process tree as it is now (a Puma master and its
    # workers), each process's memory from /proc (smaps_rollup: RSS, PSS, USS), the readings each one wrote
    # (ReadingsDir), and its allocator, read once per process from its maps as doctor reads it (a process
    # cannot change allocator). A process of the tree that wrote no readings (a shell, a child that is not
    # Ruby) is left out; a file whose process is gone is removed, and one whose pid now names a younger
    # process (pid reuse) is ignored until that process writes its own.
    class Scrape
      # starttime, in clock ticks since boot, after the command name of /proc/PID/stat (field 22).
      START_TIME = 19

      def initialize(root_pid:, readings_dir:, proc_root: "/proc")
        @root_pid = root_pid
        @dir = readings_dir
        @proc_root = proc_root
        @allocators = {}
        @requests = RequestTotals.new
      end

      # @return [Array<Exposition::Snapshot>]
      def snapshots
        tree = Probe::ProcessTree.pids(@root_pid, proc_root: @proc_root)
        texts = @dir.read_all
        forget_gone(texts.keys - tree)
        @allocators.select! { |pid, _| tree.include?(pid) }
        found = tree.filter_map { |pid| texts[pid] && snapshot(pid, Readings.parse(texts[pid])) }
        requests = @requests.sum(found.to_h { |one| [one.pid, one.readings] }, tree)
        found.each { |one| one.requests = requests if one.pid == @root_pid }
      end

      # The start time a process writes into its readings, to tell it from a later process with its pid.
      def self.start_time(pid = Process.pid, proc_root: "/proc")
        Probe::ProcStat.field(pid, START_TIME, proc_root: proc_root)
      end

      private

      def snapshot(pid, readings)
        return unless readings["started"] == Scrape.start_time(pid, proc_root: @proc_root)

        files = Probe::ProcFiles.new(pid, root: @proc_root)
        root = pid == @root_pid
        Exposition::Snapshot.new(pid: pid, role: root ? "master" : "worker",
                                 memory: Probe::MemoryReading.of(files), readings: readings,
                                 allocator: allocator(pid, files), container: (container if root),
                                 conditions: conditions(pid, files))
      rescue Error
        nil # gone since the tree was read, or unreadable
      end

      # What a lab sets against production (fleet --expect): the CPUs the process may run on, Puma's pool threads in
      # it, and the Ruby this exporter runs in (a tree runs one Ruby; YJIT is on or off for all of it).
      def conditions(pid, files)
        cpus = files.status["Cpus_allowed_list"]
        { cpus: cpus && Cpus::Layout.parse_list(cpus).size,
          pool_threads: Probe::PumaTree.pool_threads(pid, @proc_root), ruby: RUBY_VERSION, yjit: yjit? }
      end

      def yjit? = !!(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?)

      # The cgroup is found once (a process does not move), its figures read at every scrape.
      def container
        @cgroup = Probe::CgroupMemory.of(@root_pid, proc_root: @proc_root) unless defined?(@cgroup)
        @cgroup&.read
      rescue SystemCallError
        nil # the cgroup went away under us: no figures this scrape
      end

      def allocator(pid, files)
        @allocators[pid] ||= Allocators::Detection.detect(mapped_paths: files.mapped_paths, environ: files.environ)
      rescue Error
        nil
      end

      def forget_gone(pids)
        pids.each { |pid| @dir.remove(pid) unless File.directory?(File.join(@proc_root, pid.to_s)) }
      end
    end
  end
end
