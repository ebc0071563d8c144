# frozen_string_literal: true

require "etc"

module Mallard
  module Probe
    # CPU time, in seconds, as the kernel counts it: of processes (user + system, all their threads, and the
    # children each has reaped, from /proc/PID/stat), and of the whole machine (every CPU's busy time, from
    # /proc/stat). Their difference over a run is the work done by processes that are neither mallard nor its
    # subject. A child's time must stay counted once it exits: a job worker's workload stops part-way through the
    # load window, and without its parent's cutime its CPU would vanish from the tree's sum and reappear as other
    # processes' work.
    module CpuTime
      TICKS = Etc.sysconf(Etc::SC_CLK_TCK).to_f
      # /proc/stat's cpu line: user nice system idle iowait irq softirq steal — idle and iowait are not busy.
      BUSY_FIELDS = [0, 1, 2, 5, 6, 7].freeze
      FIELDS = [ProcStat::UTIME, ProcStat::STIME, ProcStat::CUTIME, ProcStat::CSTIME].freeze

      module_function

      # @param pids [Array<Integer>] processes still running; one that exited meanwhile counts through the parent
      #   that reaped it, if that parent is among them
      def processes(pids, proc_root: "/proc")
        pids.sum { |pid| process(pid, proc_root: proc_root).to_f }
      end

      # @return [Float, nil] one process's, its reaped children's included; nil once it is gone
      def process(pid, proc_root: "/proc")
        fields = ProcStat.fields(pid, proc_root: proc_root)
        fields && (FIELDS.sum { |i| Integer(fields[i], exception: false).to_i } / TICKS)
      end

      def machine(proc_root: "/proc")
        fields = File.foreach(File.join(proc_root, "stat")).first.split.drop(1).map { |field| Integer(field) }
        fields.values_at(*BUSY_FIELDS).compact.sum / TICKS
      rescue SystemCallError, ArgumentError, TypeError
        nil
      end
    end
  end
end
