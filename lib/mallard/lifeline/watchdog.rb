# frozen_string_literal: true

module Mallard
  module Lifeline
    # The other end of mallard's lifeline, in a process of its own. It reads which process groups
    # mallard started from a pipe whose only writer is mallard; end of file on that pipe means mallard
    # is gone, however it went (exit, exception, SIGKILL, any thread). It then ends what mallard left
    # behind: TERM, a grace period, KILL.
    #
    # What it ends is found two ways, because each misses something the other catches: the process
    # groups mallard registered (members that cleared their environment, as `sudo` does), and every
    # process whose environment carries this mallard's token (children that left the group with setsid,
    # a daemon's re-parented grandchildren, a child started just before mallard could register it).
    #
    # It requires nothing else from mallard and is started as `ruby --disable-gems watchdog.rb TOKEN`,
    # so it boots in a few tens of milliseconds and no app's RUBYOPT or bundle can break it.
    class Watchdog
      VARIABLE = "MALLARD_LIFELINE"
      # Enough for Puma to finish a graceful stop (and the app its at_exit hooks), short enough that a
      # killed mallard's run is quiet within seconds.
      GRACE = 2.0
      POLL = 0.1
      KILL_ROUNDS = 10

      def initialize(token:, registrations:, proc_root: "/proc")
        @marker = "#{VARIABLE}=#{token}"
        @registrations = registrations
        @proc_root = proc_root
        @groups = []
        @signalled = {}
      end

      def run
        @registrations.each_line { |line| register(line) }
        end_run
      end

      private

      # "+PGID" when mallard started a group, "-PGID" once it has stopped it itself.
      def register(line)
        pgid = Integer(line[1..], exception: false)
        return unless pgid&.positive?

        line.start_with?("+") ? @groups |= [pgid] : @groups.delete(pgid)
      end

      def end_run
        deadline = monotonic + GRACE
        while (left = remaining).any? && monotonic < deadline
          left.each { |pid, pgid| terminate(pid, pgid) }
          sleep POLL
        end
        KILL_ROUNDS.times do
          (left = remaining).each { |pid, _| signal("KILL", pid) }
          break if left.empty?

          sleep POLL
        end
      end

      # TERM once to each group and each tagged process: a second TERM makes some servers skip their
      # graceful stop.
      def terminate(pid, pgid)
        key = @groups.include?(pgid) ? -pgid : pid
        signal("TERM", key) unless @signalled[key]
        @signalled[key] = true
      end

      # [pid, pgid] of every live process of the run (zombies are dead already; only their parent can
      # reap them).
      def remaining
        Dir.children(@proc_root).filter_map do |name|
          pid = Integer(name, exception: false)
          next if pid.nil? || pid == Process.pid

          state, pgid = stat(pid)
          [pid, pgid] if state && state != "Z" && (@groups.include?(pgid) || tagged?(pid))
        end
      end

      def stat(pid)
        fields = File.read(File.join(@proc_root, pid.to_s, "stat")).rpartition(")").last.split
        [fields[0], Integer(fields[2])]
      rescue SystemCallError, ArgumentError
        nil
      end

      def tagged?(pid)
        File.binread(File.join(@proc_root, pid.to_s, "environ")).split("\0").include?(@marker)
      rescue SystemCallError
        false
      end

      def signal(name, target)
        Process.kill(name, target)
      rescue SystemCallError
        nil
      end

      def monotonic
        Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end
    end
  end
end

if $PROGRAM_NAME == __FILE__
  # A hangup or ^C is meant for mallard; this process must outlive mallard to clean up after it.
  %w[HUP INT QUIT].each { |name| trap(name, "IGNORE") }
  Mallard::Lifeline::Watchdog.new(token: ARGV.fetch(0), registrations: $stdin).run
end
