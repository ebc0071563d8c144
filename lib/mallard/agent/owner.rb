# frozen_string_literal: true

module Mallard
  module Agent
    # The mallard process whose run this agent records for. Once it is gone the run is over, and
    # nothing may be appended to the run's files any more: a report of a finished run must read the
    # same every time, even if this process outlives mallard (mallard's watchdog ends it within
    # seconds, but a process can escape it, or ignore TERM for a while).
    #
    # It keeps /proc/PID/stat of mallard open: once that process has been reaped, reading the open
    # file fails with ESRCH even if the PID has been reused since, so no PID can be mistaken for
    # another. A killed mallard not yet reaped by its parent reads as a zombie. Each check reads into
    # one buffer kept for the agent's life, so it allocates nothing (see RecordLine for why that matters).
    # pread shares no file offset, so forked children (Puma workers) check through the same file.
    #
    # A mallard that cannot be watched (no /proc, PIDs hidden from this user) counts as alive: the agent
    # then records as it did before it knew of owners.
    class Owner
      # "Z" (zombie) and "X" (dead), as bytes: getbyte allocates nothing.
      DEAD_STATES = ["Z".ord, "X".ord].freeze

      # @param env [Hash] the MALLARD_LIFELINE variable Lifeline gives every child: "<mallard pid>:<token>"
      # @return [Owner, nil] nil when the agent was not started by mallard
      def self.from_env(env)
        pid = Integer(env["MALLARD_LIFELINE"].to_s[/\A\d+/], exception: false)
        pid && new(pid)
      end

      attr_reader :pid

      def initialize(pid, proc_root: "/proc")
        @pid = pid
        @stat = File.open(File.join(proc_root, pid.to_s, "stat"))
        @buffer = String.new(capacity: 512)
        @gone = false
      rescue Errno::ENOENT, Errno::ESRCH
        @gone = true # gone before the agent started
      rescue SystemCallError
        @stat = nil
      end

      # A child forked while a thread of its parent was in pread has a copy of the buffer that is locked for good
      # (Ruby locks a string it reads into until the read returns, and in the child no read returns): every check
      # would raise "can't modify string; temporarily locked", and the child's agent would record nothing (a Solid
      # Queue worker counted 0 of 361 jobs). So each child reads into a buffer of its own.
      def after_fork
        @buffer = String.new(capacity: 512)
      end

      def alive?
        return false if @gone
        return true unless @stat

        @stat.pread(512, 0, @buffer)
        @gone = dead_state?
        !@gone
      rescue Errno::ESRCH
        @gone = true
        false
      rescue SystemCallError, IOError
        true
      end

      private

      # The state is the field after the command name, which may itself hold ") ".
      def dead_state?
        at = @buffer.rindex(")")
        state = at && @buffer.getbyte(at + 2)
        DEAD_STATES.include?(state)
      end
    end
  end
end
