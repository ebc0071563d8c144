# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A job worker's jobs: counts and rate, each job's wait in its queue and its run, the queues, and how the
      # workload ended.
      class JobsView < View
        PERCENTILES = %i[p50 p90 p99 max].freeze

        # @param jobs [Summary::Jobs]
        def initialize(jobs)
          super()
          @jobs = jobs
        end

        template <<~'ERB'
          <%= Figures.new(rows) %>
          <h3>Queue wait and run time per job</h3>
          <table class="latency">
          <thead><tr><th scope="col"></th><%- PERCENTILES.each do |name| -%><th scope="col"><%= name %></th><%- end -%></tr></thead>
          <tbody>
          <%- [["queue wait", @jobs.queue_latency_ms], ["run", @jobs.job_ms]].each do |label, figures| -%>
          <tr><th scope="row"><%= label %></th><%- PERCENTILES.each do |name| -%><td><%= number(figures&.[](name), 1) %> ms</td><%- end -%></tr>
          <%- end -%>
          </tbody>
          </table>
          <p class="note">Per job, from the agent's Sidekiq middleware (sampled when one of the agent's intervals ran more than 100 jobs).
          Allocations are per process: Ruby counts them for all of a process's threads together.</p>
        ERB

        private

        def rows
          [["Jobs processed", count(@jobs.processed)], ["Failed", failed], ["Throughput", rate],
           ["Allocations per job", count(@jobs.allocations_per_job)],
           ["Queue depth, most", count(@jobs.max_enqueued)],
           ["Oldest job's wait, most", @jobs.oldest_wait_ms_max && "#{number(@jobs.oldest_wait_ms_max, 1)} ms"],
           ["Sidekiq's own count", "#{count(@jobs.redis_processed)} processed, #{count(@jobs.redis_failed)} failed " \
                                   "(written every few seconds, so behind)"],
           ["Workload", @jobs.workload_exit], ["Drain", drain]]
        end

        def failed = "#{count(@jobs.failed)} (#{number(@jobs.failed_pct, 1)}%)"
        def rate = @jobs.per_s && "#{number(@jobs.per_s, 1)} jobs/s"

        def drain
          return if @jobs.drained.nil?

          return "queues empty #{@jobs.drain_s} s after the workload stopped" if @jobs.drained

          "timed out with #{count(@jobs.left)} jobs waiting"
        end
      end
    end
  end
end
