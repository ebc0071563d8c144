# frozen_string_literal: true

require_relative "redis_queue_stats"

module Mallard
  module Probe
    # A Resque worker's queues in Redis, under Resque's namespace "resque": stat:processed and stat:failed (the parent
    # counts each job as its child exits), the set "queues", a list queue:NAME per queue (pushed on the right, so its
    # oldest job is the first element), and the list "failed" of failed jobs, kept until retried or cleared by hand
    # (as dead). Resque has no retries of its own (nil).
    #
    # Resque's payload holds no time of enqueue: the oldest job's age is known only when the workload adds an
    # enqueued_at (epoch seconds) to what it pushes.
    #
    # A worker takes a job off its queue before it runs it: the job is counted as waiting (enqueued) until it is done,
    # by the key worker:ID Resque keeps while a worker is on a job, so that a drain ends only once the last job is done
    # and counted in stat:processed (Resque clears the key and counts the job in one pipeline).
    class ResqueStats < RedisQueueStats
      COUNTERS = { processed: %w[GET resque:stat:processed], failed: %w[GET resque:stat:failed],
                   queues: %w[SMEMBERS resque:queues], dead: %w[LLEN resque:failed] }.freeze
      OLDEST = 0

      def read(now: Time.now.to_f)
        figures = super
        figures.merge(enqueued: figures[:enqueued] + working)
      end

      private

      def working
        workers = Array(@connection.call("SMEMBERS", "resque:workers"))
        return 0 if workers.empty?

        @connection.pipelined(workers.map { |id| ["EXISTS", "resque:worker:#{id}"] }).sum(&:to_i)
      end

      def queue_key(name) = "resque:queue:#{name}"
    end
  end
end
