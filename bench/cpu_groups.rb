# frozen_string_literal: true

require "fileutils"

module Bench
  # Puts each server of a side-by-side pair in a CPU control group of its own, with equal weight, so that sharing
  # one CPU they share it as two containers or two systemd services do: half each while both want it. Without
  # groups Linux shares a CPU between threads, not processes, and a server's share then depends on how many of its
  # threads are runnable at each moment: the demo app with the agent got 2% less CPU time than its neighbour without
  # it, a loss no app with a CPU of its own sees (bench/README.md).
  #
  # The cgroup v1 "cpu" hierarchy, or cgroup v2 where its root delegates the cpu controller; root only.
  module CpuGroups
    V1 = "/sys/fs/cgroup/cpu"
    V2 = "/sys/fs/cgroup"
    PREFIX = "mallard-bench-"

    module_function

    # The directory groups are made in, or nil (with why) when this machine has none that can be used.
    # @return [Array(String, nil), Array(nil, String)]
    def root
      return [nil, "not root"] unless Process.uid.zero?
      return [V1, nil] if File.writable?(File.join(V1, "cgroup.procs"))
      return [V2, nil] if File.read(File.join(V2, "cgroup.subtree_control")).split.include?("cpu")

      [nil, "no cgroup hierarchy with the cpu controller"]
    rescue SystemCallError
      [nil, "no cgroup hierarchy with the cpu controller"]
    end

    # Moves each process (all its threads) into the group of its name, made when missing.
    # @param pids [Hash{Symbol => Integer}]
    def place(dir, pids)
      pids.each do |name, pid|
        group = File.join(dir, "#{PREFIX}#{name}")
        FileUtils.mkdir_p(group)
        File.write(File.join(group, "cgroup.procs"), pid.to_s)
      end
    end

    # Removes the groups once their processes are gone (a group with a process in it cannot be removed).
    def remove(dir, names)
      names.each do |name|
        Dir.rmdir(File.join(dir, "#{PREFIX}#{name}"))
      rescue SystemCallError
        nil
      end
    end
  end
end
