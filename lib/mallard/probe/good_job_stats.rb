# frozen_string_literal: true

require_relative "store_stats"

module Mallard
  module Probe
    # A GoodJob worker's queues as its database holds them, read from outside the worker (psql) into the same fields as
    # Sidekiq's (SidekiqStats) and Solid Queue's: GoodJob keeps a job's row once it is finished (preserve_job_records,
    # its default), so jobs finished (good_jobs.finished_at, no error) and failed (finished with an error: discarded),
    # processed being both; the jobs due and not yet finished, and the age of the oldest not yet started (from when it
    # was due); the jobs scheduled for later (Active Job's retries wait there) as retries, and the discarded as dead.
    class GoodJobStats
      include StoreStats

      # Due and not finished: waiting, or running on a thread. GoodJob marks a job finished once its perform has
      # returned, so a drain that waited only for the waiting ones could end before the last rows are; a job enqueued
      # to run now is due from when it was made.
      DUE = "finished_at IS NULL AND coalesce(scheduled_at, created_at) <= now()"
      # Due and not yet started: GoodJob sets performed_at as it starts a job (it picks jobs by advisory lock, by
      # default, so locked_by_id says nothing).
      WAITING = "#{DUE} AND performed_at IS NULL".freeze
      # One statement, so the figures are of one moment.
      QUERY = <<~SQL.tr("\n", " ")
        SELECT count(*) FILTER (WHERE finished_at IS NOT NULL AND error IS NULL),
               count(*) FILTER (WHERE finished_at IS NOT NULL AND error IS NOT NULL),
               count(*) FILTER (WHERE #{DUE}),
               extract(epoch FROM now() - min(coalesce(scheduled_at, created_at)) FILTER (WHERE #{WAITING})) * 1000.0,
               count(*) FILTER (WHERE finished_at IS NULL AND scheduled_at > now())
        FROM good_jobs
      SQL
    end
  end
end
