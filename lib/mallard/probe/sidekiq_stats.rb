# frozen_string_literal: true

require_relative "redis_queue_stats"

module Mallard
  module Probe
    # A Sidekiq worker's queues in Redis. The keys are Sidekiq's (6.4 to 8): stat:processed, stat:failed, the set
    # "queues", a list queue:NAME per queue (pushed on the left, so its oldest job is the last element), and the
    # sorted sets retry and dead.
    #
    # Sidekiq writes its counters from each process's heartbeat, every few seconds: they lag the work. The
    # agent's per-job records are exact; these are the worker's own account, read the way a dashboard reads it.
    class SidekiqStats < RedisQueueStats
      COUNTERS = { processed: %w[GET stat:processed], failed: %w[GET stat:failed], queues: %w[SMEMBERS queues],
                   retries: %w[ZCARD retry], dead: %w[ZCARD dead] }.freeze
      OLDEST = -1

      private

      def queue_key(name) = "queue:#{name}"
    end
  end
end
