# frozen_string_literal: true

module Mallard
  module Agent
    # Sidekiq server middleware (the job worker's counterpart of Middleware): for each job, its class, the time it
    # ran, the time it waited in its queue (from the job's enqueued_at to the start of its run), and whether it
    # raised. Allocation counts are not per job: GC.stat counts a whole process's threads together, so the
    # analysis divides the agent's interval allocations by the jobs of the interval instead.
    class JobMiddleware
      # Sidekiq 8 writes enqueued_at as integer epoch milliseconds, 6 and 7 as float epoch seconds: a value this
      # large can only be milliseconds.
      MILLISECONDS_FROM = 1e11

      # A job's enqueued_at (any Sidekiq) in epoch seconds; nil when it has none. Also read by mallard from Redis
      # (Probe::SidekiqStats), so the rule lives here, in the self-contained agent.
      def self.epoch_seconds(enqueued_at)
        return unless enqueued_at.is_a?(Numeric)

        enqueued_at > MILLISECONDS_FROM ? enqueued_at / 1000.0 : enqueued_at
      end

      def initialize(recorder)
        @recorder = recorder
      end

      # Active Job's jobs run through Sidekiq as its JobWrapper, their own class in "wrapped".
      def call(_worker, job, _queue)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond)
        queued_ms = queued_ms(job["enqueued_at"])
        @recorder.job_started
        failed = 1
        yield
        failed = 0
      ensure
        @recorder.record_job(Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond) - started,
                             queued_ms, failed, job["wrapped"] || job["class"])
      end

      private

      def queued_ms(enqueued_at)
        return unless (seconds = self.class.epoch_seconds(enqueued_at))

        waited = Process.clock_gettime(Process::CLOCK_REALTIME, :float_millisecond) - (seconds * 1000.0)
        waited.negative? ? 0.0 : waited
      end
    end
  end
end
