# frozen_string_literal: true

require "securerandom"
require_relative "lifeline/keeper"
require_relative "lifeline/watchdog"
require_relative "lifeline/signals"

module Mallard
  # Every long-lived process mallard starts (the subject, wrk, `doctor -- CMD`'s command) is started
  # here, so that none outlives mallard, even when mallard is killed with SIGKILL.
  #
  # Why a watchdog process and not PR_SET_PDEATHSIG in an exec wrapper: the death signal fires when the
  # *thread* that forked dies, not the process (so a child started from a thread mallard later ends
  # would die early); it is not inherited by the child's own children (Puma's workers, the command a
  # `sh -c` or `bundle exec` starts); and the kernel clears it when the child changes credentials or
  # execs a set-user-ID program (`runuser`, `sudo`), the very wrappers `doctor -- CMD` meets. A pipe
  # whose only writer is mallard reaches end of file when the whole process is gone, however it went,
  # and needs no C extension and no prctl: see Lifeline::Watchdog for what the watchdog then ends.
  #
  # Each child runs in its own process group and carries MALLARD_LIFELINE=<pid>:<random>, which tells
  # the watchdog that it belongs to this mallard, and the in-process agent which mallard its run
  # belongs to (Agent::Owner).
  module Lifeline
    VARIABLE = Watchdog::VARIABLE
    LOCK = Mutex.new

    class << self
      # Process.spawn in a new process group that the watchdog knows of.
      # @return [Integer] the child's PID, which is also its process group's ID
      def spawn(env, *argv, **options)
        keeper.ensure_running # before the child exists: its token alone then suffices
        pid = Process.spawn(env.merge(VARIABLE => token), *argv, **options, pgroup: true)
        keeper.watch(pid)
        pid
      end

      # The group has been stopped and reaped by mallard itself: its ID may soon name another group.
      def release(pgid)
        keeper.forget(pgid)
      end

      # Unique to this mallard process; the PID first, for the agent.
      def token
        keeper.token
      end

      # The watchdog's PID (tests).
      def watchdog_pid
        keeper.pid
      end

      private

      def keeper
        LOCK.synchronize { @keeper ||= Keeper.new(token: "#{Process.pid}:#{SecureRandom.hex(8)}") }
      end
    end
  end
end
