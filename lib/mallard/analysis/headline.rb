# frozen_string_literal: true

module Mallard
  module Analysis
    # The one rule for what a soak's work is counted in: a job worker's jobs (jobs/s, the wait in the queue, failed
    # jobs, CPU per job), else the load tool's requests (req/s, request latency, errors, CPU per request).
    module Headline
      module_function

      # @param summary [Summary::Soak]
      # @return [Summary::Headline]
      def of(summary)
        jobs = summary.jobs
        return from_jobs(jobs) if jobs || summary.target&.jobs?

        load = summary.load
        Summary::Headline.new(unit: "requests", rate: load&.rps, latency_ms: load&.latency_ms, errors: load&.errors,
                              cpu_ms_per_unit: load&.cpu_ms_per_request)
      end

      def from_jobs(jobs)
        Summary::Headline.new(unit: "jobs", rate: jobs&.per_s, latency_ms: jobs&.queue_latency_ms,
                              errors: jobs&.failed, cpu_ms_per_unit: jobs&.cpu_ms_per_job)
      end

      private_class_method :from_jobs
    end
  end
end
