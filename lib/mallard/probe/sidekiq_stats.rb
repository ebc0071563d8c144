# frozen_string_literal: true

require "json"
require_relative "../agent/job_middleware"

module Mallard
  module Probe
    # A job worker's queues as Sidekiq keeps them in Redis, read from outside the worker: its processed and
    # failed counters, the jobs waiting in each queue and the age of the oldest, the retry and dead sets. The
    # keys are Sidekiq's (6.4 to 8): stat:processed, stat:failed, the set "queues", a list queue:NAME per queue
    # (pushed on the left, so its oldest job is the last element), and the sorted sets retry and dead.
    #
    # Sidekiq writes its counters from each process's heartbeat, every few seconds: they lag the work. The
    # agent's per-job records are exact; these are the worker's own account, read the way a dashboard reads it.
    class SidekiqStats
      def initialize(connection)
        @connection = connection
      end

      # @param now [Float] epoch seconds, to age the oldest job
      # @return [Hash] processed, failed, enqueued, latency_ms (age of the oldest waiting job), retries, dead
      # @raise [RedisConnection::Failed]
      def read(now: Time.now.to_f)
        processed, failed, queues, retries, dead = @connection.pipelined(
          [%w[GET stat:processed], %w[GET stat:failed], %w[SMEMBERS queues], %w[ZCARD retry], %w[ZCARD dead]]
        )
        lengths, oldest = queue_heads(Array(queues))
        { processed: processed.to_i, failed: failed.to_i, enqueued: lengths.sum, latency_ms: latency_ms(oldest, now),
          retries: retries, dead: dead }
      end

      # The connection it reads on goes with it.
      def close = @connection.close

      private

      def queue_heads(queues)
        return [[], []] if queues.empty?

        replies = @connection.pipelined(queues.flat_map do |name|
                                          [["LLEN", "queue:#{name}"], ["LINDEX", "queue:#{name}", -1]]
                                        end)
        replies.each_slice(2).map { |length, job| [length, enqueued_at(job)] }.transpose
      end

      def enqueued_at(job)
        return unless job

        Agent::JobMiddleware.epoch_seconds(JSON.parse(job)["enqueued_at"])
      rescue JSON::ParserError
        nil
      end

      # The oldest waiting job's age; 0 when nothing waits.
      def latency_ms(oldest, now)
        started = oldest.compact.min
        started ? [((now - started) * 1000).round(1), 0.0].max : 0.0
      end
    end
  end
end
