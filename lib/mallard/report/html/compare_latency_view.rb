# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Latency per configuration: medians over the repeats of each run's whole-run percentiles. For a job worker,
      # each job's wait in its queue.
      class CompareLatencyView < View
        # @param configs [Array<Summary::Config>]
        # @param jobs [Boolean] a job worker's comparison
        def initialize(configs, jobs: false)
          super()
          @configs = Array(configs).select { |config| config.repeats.to_i.positive? }
          @jobs = jobs
          @labels = Words::WORK.fetch(jobs ? "jobs" : "requests")
        end

        template <<~'ERB'
          <h3><%= @jobs ? "Queue wait per job" : "Latency" %></h3>
          <table class="latency">
          <thead><tr><th scope="col">Configuration</th><th scope="col">p50 ms</th><th scope="col"><%= @labels[:latency_column] %> (95% CI)</th>
          <th scope="col"><%= @labels[:errors].capitalize %></th></tr></thead>
          <tbody>
          <%- @configs.each do |config| -%>
          <tr><th scope="row"><%= config.name %></th><td><%= number(config.latency_ms&.p50&.median) %></td>
          <td><%= p99(config.latency_ms&.p99) %></td><td><%= config.errors %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          <%- if @jobs -%>
          <p class="note">Each run's percentiles of the time its jobs waited in the queue, from the agent's Sidekiq
          middleware.</p>
          <%- else -%>
          <p class="note">Each run's latency percentiles are for the whole run: wrk reports no latency over time,
          so none is drawn.</p>
          <%- end -%>
        ERB

        private

        def p99(figure)
          return "—" unless figure

          low, high = figure.ci
          low ? "#{number(figure.median)} (#{number(low)} … #{number(high)})" : number(figure.median)
        end
      end
    end
  end
end
