# frozen_string_literal: true

module Mallard
  module Analysis
    # A job worker's figures. Counts come from the agent's JobMiddleware, which sees every job as it ends; the
    # queues (depth, the oldest job's wait) and Sidekiq's own counters come from Redis, read from outside.
    # Sidekiq writes its counters only from each process's heartbeat, every few seconds, so they lag the agent's:
    # they are shown beside them as the worker's own account, never used for a rate.
    module JobFigures
      module_function

      # @param run [Run::SoakRun]
      # @return [Summary::Jobs, nil] nil for a run that is not a job worker's
      def call(run)
        return unless run.jobs?

        processed, failed = finished(run.agent)
        Summary::Jobs.new(
          processed: processed, failed: failed, failed_pct: failed_pct(processed, failed),
          per_s: per_second(run.load_totals), queue_latency_ms: percentiles(run.agent, :queue_ms),
          job_ms: percentiles(run.agent, :job_ms), allocations_per_job: allocations_per_job(run.agent),
          max_enqueued: run.jobs.filter_map(&:enqueued).max, oldest_wait_ms_max: run.jobs.filter_map(&:latency_ms).max,
          redis_processed: run.jobs.last&.processed, redis_failed: run.jobs.last&.failed, **ending(run.workload)
        )
      end

      # Jobs finished and failed, each process's latest cumulative count summed.
      def finished(records)
        latest = records.to_h { |record| [record.pid, record] }.values
        [latest.sum { |record| record.requests.to_i }, latest.sum { |record| record.jobs_failed.to_i }]
      end

      # 100 when nothing finished: a run that processed nothing measured nothing.
      def failed_pct(processed, failed)
        processed.positive? ? (100.0 * failed / processed).round(3) : 100.0
      end

      # The agent's count across the load window (pushing and draining), over its length.
      def per_second(totals)
        first = totals.first
        last = totals.last
        return if first.nil? || last.t <= first.t

        ((last.requests.to_i - first.requests.to_i) / (last.t - first.t)).round(1)
      end

      def percentiles(records, column)
        values = records.flat_map { |record| record.public_send(column) || [] }.compact
        return if values.empty?

        Summary::Percentiles.new(p50: Statistics.percentile(values, 50)&.round(1),
                                 p90: Statistics.percentile(values, 90)&.round(1),
                                 p99: Statistics.percentile(values, 99)&.round(1), max: values.max.round(1))
      end

      # GC.stat counts a process's allocations across all its threads, so per job means per process: its
      # allocations over the jobs it finished between its first and last records.
      def allocations_per_job(records)
        spans = records.group_by(&:pid).values.map { |own| [own.first, own.last] }
        jobs = spans.sum { |first, last| last.requests.to_i - first.requests.to_i }
        return unless jobs.positive?

        allocated = spans.sum { |first, last| allocated(last) - allocated(first) }
        (allocated.to_f / jobs).round
      end

      def allocated(record) = (record.gc || {}).fetch("total_allocated_objects", 0).to_i

      def ending(workload)
        return {} unless workload

        { workload_exit: workload.exit, drained: workload.drained, drain_s: workload.drain_s, left: workload.left }
      end
    end
  end
end
