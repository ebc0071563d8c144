# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Latency per configuration: medians over the repeats of each run's whole-run percentiles.
      class CompareLatencyView < View
        # @param configs [Array<Summary::Config>]
        def initialize(configs)
          super()
          @configs = Array(configs).select { |config| config.repeats.to_i.positive? }
        end

        template <<~'ERB'
          <h3>Latency</h3>
          <table class="latency">
          <thead><tr><th scope="col">Configuration</th><th scope="col">p50 ms</th><th scope="col">p99 ms (95% CI)</th>
          <th scope="col">Errors</th></tr></thead>
          <tbody>
          <%- @configs.each do |config| -%>
          <tr><th scope="row"><%= config.name %></th><td><%= number(config.latency_ms&.p50&.median) %></td>
          <td><%= p99(config.latency_ms&.p99) %></td><td><%= config.errors %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          <p class="note">Each run's latency percentiles are for the whole run: wrk reports no latency over time,
          so none is drawn.</p>
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
