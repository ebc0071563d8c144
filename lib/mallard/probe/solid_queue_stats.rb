# frozen_string_literal: true

module Mallard
  module Probe
    # A Solid Queue worker's queues as its database holds them, read from outside the worker into the same fields
    # as Sidekiq's (SidekiqStats): jobs finished (solid_queue_jobs.finished_at) and failed (failed_executions),
    # processed being both; the jobs waiting (ready_executions) and the age of the oldest; the jobs scheduled for
    # later (scheduled_executions: Active Job's retries wait there) as retries, and the failed as dead, which
    # Solid Queue keeps until they are retried or discarded by hand.
    class SolidQueueStats
      # One statement, so the figures are of one moment. Times are stored in UTC as text; julianday reads them.
      QUERY = <<~SQL.tr("\n", " ")
        SELECT (SELECT count(*) FROM solid_queue_jobs WHERE finished_at IS NOT NULL),
               (SELECT count(*) FROM solid_queue_failed_executions),
               (SELECT count(*) FROM solid_queue_ready_executions),
               (SELECT (julianday('now') - julianday(min(created_at))) * 86400000.0 FROM solid_queue_ready_executions),
               (SELECT count(*) FROM solid_queue_scheduled_executions)
      SQL

      # @param store [#query] Target::SolidQueueStore
      def initialize(store)
        @store = store
      end

      # @return [Hash] processed, failed, enqueued, latency_ms (age of the oldest waiting job), retries, dead
      # @raise [Target::SolidQueueStore::Failed]
      def read
        row = @store.query(QUERY).first.map { |column| Float(column, exception: false) }
        finished, failed, enqueued, oldest_ms, scheduled = row
        { processed: (finished + failed).to_i, failed: failed.to_i, enqueued: enqueued.to_i,
          latency_ms: [oldest_ms.to_f, 0.0].max.round(1), retries: scheduled.to_i, dead: failed.to_i }
      end

      # Each read is a process of its own: nothing stays open.
      def close = nil
    end
  end
end
