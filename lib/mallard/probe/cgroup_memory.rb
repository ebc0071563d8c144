# frozen_string_literal: true

module Mallard
  module Probe
    # The memory of the cgroup a process sits in, as the kernel charges it and a container's OOM killer counts it:
    # anonymous memory and page cache together, every process of the cgroup included. Read only: mallard never
    # creates a cgroup, moves a process or writes a cgroup file (on machines where the cgroup belongs to someone
    # else that is not ours to do).
    #
    # cgroup v1 (the memory controller's own hierarchy): memory.usage_in_bytes, max_usage_in_bytes (its high-water
    # mark since the cgroup was made or reset), limit_in_bytes, failcnt, memory.stat's hierarchical rss and cache,
    # and oom_control's oom_kill. cgroup v2: memory.current, memory.peak, memory.max, memory.stat's anon and file,
    # memory.events' oom_kill. A v2 hierarchy mounted without the memory controller (a hybrid host's
    # /sys/fs/cgroup/unified) has none of these files and is passed over.
    class CgroupMemory
      # A v1 limit this high (the page-rounded LONG_MAX) is "no limit".
      NO_LIMIT = 2**62

      attr_reader :version, :path

      # @return [CgroupMemory, nil] nil when the process has gone or sits in no readable memory cgroup
      def self.of(pid, proc_root: "/proc", mount_root: "/sys/fs/cgroup")
        text = File.read(File.join(proc_root, pid.to_s, "cgroup"))
        locate(text, mount_root).find(&:readable?)
      rescue SystemCallError
        nil
      end

      # Where each hierarchy of /proc/PID/cgroup's text would hold the memory files: v1's memory line, then v2's
      # "0::" line under a pure v2 mount and a hybrid host's unified one.
      # @return [Array<CgroupMemory>]
      def self.locate(text, mount_root)
        text.each_line(chomp: true).flat_map do |line|
          id, controllers, path = line.split(":", 3)
          if id == "0" && controllers.to_s.empty?
            [File.join(mount_root, path.to_s), File.join(mount_root, "unified", path.to_s)].map do |dir|
              new(2, path, dir)
            end
          elsif controllers.to_s.split(",").include?("memory")
            [new(1, path, File.join(mount_root, "memory", path.to_s))]
          else
            []
          end
        end
      end

      # "key value" lines (memory.stat, memory.events, oom_control) as a Hash of Integers.
      def self.pairs(text)
        text.each_line.to_h do |line|
          key, value = line.split
          [key, Integer(value.to_s, exception: false)]
        end
      end

      # @param text [String] a limit file's text: a number of bytes, or v2's "max"
      # @return [Integer, nil] KiB; nil for no limit
      def self.limit_kb(text)
        bytes = Integer(text.strip, exception: false)
        bytes / 1024 if bytes && bytes < NO_LIMIT
      end

      def initialize(version, path, dir)
        @version = version
        @path = path
        @dir = dir
      end

      def readable? = File.readable?(File.join(@dir, usage_file))

      # @return [Hash] the cgroup's figures in KiB (nil where this kernel does not give one), and its processes
      def read
        figures = @version == 1 ? v1 : v2
        { version: @version, path: Text.scrub(@path), **figures, processes: processes }
      end

      private

      def usage_file = @version == 1 ? "memory.usage_in_bytes" : "memory.current"

      # memory.stat's total_ figures count the cgroup's descendants too, as usage_in_bytes does.
      def v1
        stat = self.class.pairs(file("memory.stat").to_s)
        { usage_kb: kb("memory.usage_in_bytes"), peak_kb: kb("memory.max_usage_in_bytes"),
          anon_kb: stat_kb(stat, "total_rss"), file_kb: stat_kb(stat, "total_cache"),
          limit_kb: limit("memory.limit_in_bytes"), failcnt: number("memory.failcnt"),
          oom_kills: self.class.pairs(file("memory.oom_control").to_s)["oom_kill"] }
      end

      # memory.peak came with Linux 5.19; memory.events' max counts the times usage hit memory.max, as v1's failcnt.
      def v2
        stat = self.class.pairs(file("memory.stat").to_s)
        events = self.class.pairs(file("memory.events").to_s)
        { usage_kb: kb("memory.current"), peak_kb: kb("memory.peak"), anon_kb: stat_kb(stat, "anon"),
          file_kb: stat_kb(stat, "file"), limit_kb: limit("memory.max"), failcnt: events["max"],
          oom_kills: events["oom_kill"] }
      end

      def kb(name)
        bytes = number(name)
        bytes && (bytes / 1024)
      end

      def number(name) = Integer(file(name).to_s.strip, exception: false)

      def stat_kb(stat, key) = stat[key] && (stat[key] / 1024)

      def limit(name)
        text = file(name)
        text && self.class.limit_kb(text)
      end

      def processes = file("cgroup.procs")&.lines&.size

      def file(name)
        File.read(File.join(@dir, name))
      rescue SystemCallError
        nil
      end
    end
  end
end
