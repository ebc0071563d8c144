# frozen_string_literal: true

module Mallard
  module Probe
    # A process and all its descendants (Puma's workers, a shell's children), found through
    # /proc/PID/task/TID/children, falling back to a scan of every process's parent field.
    module ProcessTree
      module_function

      def pids(root, proc_root: "/proc")
        found = [root]
        queue = [root]
        until queue.empty?
          children = children_of(queue.shift, proc_root)
          found.concat(children)
          queue.concat(children)
        end
        found.uniq
      end

      # Any thread may have forked, so every task's list counts.
      def children_of(pid, proc_root)
        tasks = File.join(proc_root, pid.to_s, "task")
        Dir.children(tasks).flat_map { |tid| File.read(File.join(tasks, tid, "children")).split.map(&:to_i) }
      rescue Errno::ENOENT
        File.directory?(tasks) ? scan_children(pid, proc_root) : [] # no children files: an older kernel
      rescue SystemCallError
        []
      end

      # Kernels without CONFIG_PROC_CHILDREN: read every process's parent from /proc/N/stat.
      def scan_children(pid, proc_root)
        Dir.children(proc_root).filter_map do |name|
          candidate = Integer(name, exception: false)
          candidate if candidate && ProcStat.field(candidate, ProcStat::PPID, proc_root: proc_root) == pid
        end
      end
    end
  end
end
