# frozen_string_literal: true

module Mallard
  module Probe
    # Every process of a tree, read once from outside (doctor on a Puma or Pitchfork master): each one's parent, its
    # title ($0, which servers set to say what a process is), the threads of Puma's pool it runs, and its memory from
    # smaps_rollup. Raw readings: Analysis::TreeShape says what they make.
    module TreeReading
      module_function

      # @param root [Integer] the process read (a server's master)
      # @return [Array<Hash>] pid, parent, title, pool_threads, memory (rss_kb, pss_kb, uss_kb, swap_kb), the root
      #   first; [] when the root has no children, so no tree to read
      def read(root, proc_root: "/proc")
        pids = ProcessTree.pids(root, proc_root: proc_root)
        return [] if pids.size < 2

        pids.filter_map { |pid| process(pid, proc_root) }
      end

      def process(pid, proc_root)
        files = ProcFiles.new(pid, root: proc_root)
        { pid: pid, parent: Integer(files.status.fetch("PPid"), 10), title: PumaTree.title(pid, proc_root).strip,
          pool_threads: PumaTree.pool_threads(pid, proc_root), memory: MemoryReading.of(files).to_h }
      rescue NotFound
        nil # exited between listing and reading: a worker being replaced
      end
    end
  end
end
