# frozen_string_literal: true

require "etc"

module Mallard
  module Probe
    # Whether a process tree has finished starting up: for WINDOW seconds no process came or went, no
    # thread was started or ended, and the whole tree used less than IDLE of one CPU. A server that has
    # booted waits for requests; one still booting loads code (busy) or starts its threads and workers
    # (shape changing). Mid-boot, `doctor` once reported 2 threads of what became a 7-thread server.
    class Settling
      WINDOW = 1.0
      IDLE = 0.05
      # CPU time is counted in clock ticks (10 ms): allow one tick of rounding over the window.
      SLACK_TICKS = 1

      Reading = Struct.new(:at, :ticks)

      def initialize(root, proc_root: "/proc", clock: Clock.method(:monotonic))
        @root = root
        @proc_root = proc_root
        @clock = clock
        @hz = Etc.sysconf(Etc::SC_CLK_TCK)
        @readings = []
      end

      # Takes a reading; true once the tree has been quiet for the whole window up to now.
      def settled?
        shape, ticks = look
        now = @clock.call
        @readings.clear if shape != @shape
        @shape = shape
        @readings << Reading.new(now, ticks)
        start = window_start(now)
        return false unless start

        ticks - start.ticks <= (IDLE * (now - start.at) * @hz) + SLACK_TICKS
      end

      private

      # The latest reading at least WINDOW old (older ones are dropped); nil until the shape has held
      # that long.
      def window_start(now)
        old = @readings.take_while { |reading| now - reading.at >= WINDOW }
        return if old.empty?

        @readings.shift(old.size - 1)
        old.last
      end

      # [[pid, threads], ...] of the tree, and the CPU ticks its processes have used so far.
      def look
        stats = ProcessTree.pids(@root, proc_root: @proc_root).filter_map { |pid| stat(pid) }
        [stats.map { |pid, threads, _| [pid, threads] }.sort, stats.sum { |_, _, ticks| ticks }]
      end

      # [pid, threads, CPU ticks]; nil when the process is gone or its stat cut short.
      def stat(pid)
        fields = ProcStat.fields(pid, proc_root: @proc_root)
        numbers = fields&.values_at(ProcStat::THREADS, ProcStat::UTIME, ProcStat::STIME)
                        &.map { |field| Integer(field, exception: false) }
        [pid, numbers[0], numbers[1] + numbers[2]] if numbers&.none?(&:nil?)
      end
    end
  end
end
