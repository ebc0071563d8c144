# frozen_string_literal: true

module Mallard
  module BootProbe
    # After the boot, forks workers as Puma does with preload_app, and reads how much of its memory each worker
    # still shares with the master: /proc/PID/smaps_rollup, whose PSS charges a shared page to each process that
    # maps it by its share, where RSS charges it in full to each.
    #
    # Each worker runs one full GC before it is read, because that is what a serving worker soon does: the GC
    # writes object flags (age, marks in the remembered set) into heap pages the worker shares with the master,
    # and each page it writes becomes the worker's own copy. Right after fork nearly everything is shared,
    # which tells nothing.
    class Workers
      FIELDS = { "Rss" => "rss_kb", "Pss" => "pss_kb", "Pss_Anon" => "pss_anon_kb", "Pss_File" => "pss_file_kb",
                 "Shared_Clean" => "shared_clean_kb", "Shared_Dirty" => "shared_dirty_kb",
                 "Private_Clean" => "private_clean_kb", "Private_Dirty" => "private_dirty_kb" }.freeze
      READY_TIMEOUT = 60

      def initialize(count, output)
        @count = count
        @output = output
      end

      def measure
        ready, ready_writer = IO.pipe
        hold, hold_writer = IO.pipe
        pids = Array.new(@count) { fork_worker(ready, ready_writer, hold, hold_writer) }
        [ready_writer, hold].each(&:close)
        return @output.write("fork_failed", "reason" => "workers not ready in #{READY_TIMEOUT} s") unless ready?(ready)

        @output.write("fork", "master" => rollup(Process.pid), "workers" => pids.map { |pid| rollup(pid) })
      ensure
        hold_writer&.close # each worker reads to end of file, then exits
        pids&.each { |pid| Process.wait(pid) }
      end

      private

      def fork_worker(ready, ready_writer, hold, hold_writer)
        fork do
          [ready, hold_writer].each(&:close)
          GC.start
          ready_writer.syswrite(".")
          hold.read # until the probe closes its end or dies
          exit!(0) # none of the app's at_exit handlers: the master still owns what they would close
        end
      end

      def ready?(pipe)
        received = 0
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + READY_TIMEOUT
        while received < @count
          left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          # IO#wait_readable needs io/wait, which the app may not load: the probe loads nothing of its own.
          return false unless left.positive? && IO.select([pipe], nil, nil, left) # rubocop:disable Lint/IncompatibleIoSelectWithFiberScheduler

          received += pipe.readpartial(64).size
        end
        true
      rescue EOFError
        false
      end

      def rollup(pid)
        text = File.read("/proc/#{pid}/smaps_rollup")
        FIELDS.to_h { |field, key| [key, text[/^#{field}:\s*(\d+) kB/, 1]&.to_i] }.merge("pid" => pid)
      end
    end
  end
end
