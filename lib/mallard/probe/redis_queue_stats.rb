# frozen_string_literal: true

require "json"
require_relative "../agent/job_middleware"

module Mallard
  module Probe
    # A job worker's queues as its backend keeps them in Redis (SidekiqStats, ResqueStats), read from outside the
    # worker: its processed and failed counters, the jobs waiting in each queue and the age of the oldest, retries and
    # dead jobs. A subclass names its keys: COUNTERS (the command reading each counter, the set of queue names under
    # :queues), queue_key(name), and OLDEST, the index of a queue's list that holds its oldest job.
    #
    # A job's age is read from its payload's enqueued_at (Agent::JobMiddleware's rule): the oldest waiting job's age
    # is unknown (nil) when jobs wait and the oldest carries none.
    class RedisQueueStats
      def initialize(connection)
        @connection = connection
      end

      # @param now [Float] epoch seconds, to age the oldest job
      # @return [Hash] processed, failed, enqueued, latency_ms (age of the oldest waiting job), retries, dead
      # @raise [RedisConnection::Failed]
      def read(now: Time.now.to_f)
        counters = self.class::COUNTERS.keys.zip(@connection.pipelined(self.class::COUNTERS.values)).to_h
        lengths, oldest = queue_heads(Array(counters[:queues]))
        enqueued = lengths.sum
        { processed: counters[:processed].to_i, failed: counters[:failed].to_i, enqueued: enqueued,
          latency_ms: latency_ms(oldest, now, enqueued), retries: counters[:retries], dead: counters[:dead] }
      end

      # The connection it reads on goes with it.
      def close = @connection.close

      private

      def queue_heads(queues)
        return [[], []] if queues.empty?

        replies = @connection.pipelined(queues.flat_map do |name|
                                          [["LLEN", queue_key(name)], ["LINDEX", queue_key(name), self.class::OLDEST]]
                                        end)
        replies.each_slice(2).map { |length, job| [length, enqueued_at(job)] }.transpose
      end

      def enqueued_at(job)
        return unless job

        Agent::JobMiddleware.epoch_seconds(JSON.parse(job)["enqueued_at"])
      rescue JSON::ParserError
        nil
      end

      # The oldest waiting job's age; 0 when nothing waits, nil when no waiting job says when it was pushed.
      def latency_ms(oldest, now, enqueued)
        started = oldest.compact.min
        return enqueued.zero? ? 0.0 : nil unless started

        [((now - started) * 1000).round(1), 0.0].max
      end
    end
  end
end
