# frozen_string_literal: true

require_relative "store_stats"

module Mallard
  module Probe
    # A Solid Queue worker's queues as its database holds them, read from outside the worker into the same fields
    # as Sidekiq's (SidekiqStats): jobs finished (solid_queue_jobs.finished_at) and failed (failed_executions),
    # processed being both; the jobs waiting (ready_executions) and the age of the oldest; the jobs scheduled for
    # later (scheduled_executions: Active Job's retries wait there) as retries, and the failed as dead, which
    # Solid Queue keeps until they are retried or discarded by hand.
    class SolidQueueStats
      include StoreStats

      # One statement, so the figures are of one moment. Times are stored in UTC as text; julianday reads them.
      QUERY = <<~SQL.tr("\n", " ")
        SELECT (SELECT count(*) FROM solid_queue_jobs WHERE finished_at IS NOT NULL),
               (SELECT count(*) FROM solid_queue_failed_executions),
               (SELECT count(*) FROM solid_queue_ready_executions),
               (SELECT (julianday('now') - julianday(min(created_at))) * 86400000.0 FROM solid_queue_ready_executions),
               (SELECT count(*) FROM solid_queue_scheduled_executions)
      SQL
    end
  end
end
