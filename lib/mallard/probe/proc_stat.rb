# frozen_string_literal: true

module Mallard
  module Probe
    # The fields of /proc/PID/stat after the command name, as Integers where they are numbers. The command
    # name may hold spaces and parentheses, so the line is split after its last ")". Indexes used here:
    # state 0, ppid 1, pgrp 2, flags 6, utime 11, stime 12, cutime 13, cstime 14, num_threads 17.
    module ProcStat
      PPID = 1
      PGRP = 2
      FLAGS = 6
      UTIME = 11
      STIME = 12
      CUTIME = 13
      CSTIME = 14
      THREADS = 17

      module_function

      # @return [Array<String>, nil] nil when the process is gone or its stat cannot be read
      def fields(pid, proc_root: "/proc")
        parse(File.read(File.join(proc_root, pid.to_s, "stat")))
      rescue SystemCallError
        nil
      end

      # @param text [String] the content of a stat file
      def parse(text)
        text.rpartition(")").last.split
      end

      # @return [Integer, nil] the field as a number; nil when gone, unreadable or cut short
      def field(pid, index, proc_root: "/proc")
        Integer(fields(pid, proc_root: proc_root)&.fetch(index, nil), exception: false)
      end
    end
  end
end
