# frozen_string_literal: true

module Mallard
  module Agent
    # Places a moment read on the process's CPU clock on the wall clock (CLOCK_MONOTONIC), from a reading of both
    # taken at each of the agent's intervals. Some of Ruby's own figures (GC::Profiler's GC start times) exist only
    # in CPU time, and CPU time runs at no fixed rate against wall time: an idle server spends almost none, a busy
    # one a second of it per second per thread. Within one interval the process's CPU is taken as spent evenly, so
    # a moment lands at most one interval from where it happened, and never outside the interval whose CPU it was.
    class CpuWallClock
      def initialize
        reset
      end

      # Forgets earlier readings and takes one: in a forked child the CPU clock starts again from zero.
      def reset
        read
        read
      end

      # Takes a reading of both clocks; the interval now runs from the previous reading to this one.
      def read
        @cpu_from = @cpu_to
        @wall_from = @wall_to
        @cpu_to = cpu_now
        @wall_to = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end

      # @param cpu [Float] seconds of the process's CPU clock
      # @return [Float] the CLOCK_MONOTONIC time at which the process had spent that much CPU, held within the
      #   interval between the last two readings
      def wall_at(cpu)
        spent = @cpu_to - @cpu_from
        return @wall_to if cpu >= @cpu_to || spent <= 0
        return @wall_from if cpu <= @cpu_from

        @wall_from + ((cpu - @cpu_from) / spent * (@wall_to - @wall_from))
      end

      # The clock Ruby's GC profiler reads first (gc.c, current_process_time): the CPU time of all the process's
      # threads.
      def cpu_now
        Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      end
    end
  end
end
