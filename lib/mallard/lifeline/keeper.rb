# frozen_string_literal: true

require "rbconfig"

module Mallard
  module Lifeline
    # mallard's end of the lifeline: starts the watchdog with the pipe's read end as its stdin and
    # keeps the write end, which no other process holds (Ruby opens every descriptor close-on-exec),
    # so the watchdog sees end of file exactly when mallard is gone.
    class Keeper
      SCRIPT = File.expand_path("watchdog.rb", __dir__)

      attr_reader :pid, :token

      def initialize(token:)
        @token = token
        @groups = []
        @lock = Mutex.new
      end

      def watch(pgid)
        @lock.synchronize do
          @groups |= [pgid]
          tell("+#{pgid}")
        end
      end

      def forget(pgid)
        @lock.synchronize do
          @groups.delete(pgid)
          tell("-#{pgid}") if @writer
        end
      end

      # Starts the watchdog unless one is running (a watchdog someone killed is replaced, and told
      # every group still registered).
      def ensure_running
        @lock.synchronize { start unless running? }
      end

      private

      # A watchdog that died since the last look is replaced; the new one is told every group still
      # registered, this one included.
      def tell(line)
        return start unless running?

        @writer.syswrite("#{line}\n")
      rescue Errno::EPIPE
        start
      end

      def running?
        return false unless @pid

        Process.waitpid(@pid, Process::WNOHANG).nil?
      rescue Errno::ECHILD
        false
      end

      def start
        @writer&.close
        reader, @writer = IO.pipe
        @pid = Process.spawn({ "RUBYOPT" => nil, "RUBYLIB" => nil }, RbConfig.ruby, "--disable-gems", SCRIPT, @token,
                             in: reader, out: File::NULL, err: File::NULL, chdir: "/", pgroup: true)
        @groups.each { |pgid| @writer.syswrite("+#{pgid}\n") }
      ensure
        reader&.close
      end
    end
  end
end
