# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The comparison's verdict table, as the terminal shows it: per configuration the median of its
      # repeats with 95% intervals, and the change against the baseline when its interval lies beyond ±1%.
      class CompareTableView < View
        include Units
        NOISE_PCT = format("%g", Analysis::Significance::NOISE_PCT)
        HEADERS = ["Configuration", "Steady memory (MB)", "vs baseline", "Peak RSS", "req/s", "vs baseline",
                   "p99 ms", "Errors"].freeze

        def initialize(summary)
          super()
          @summary = summary
          @configs = Array(summary["configs"])
        end

        template <<~'ERB'
          <p><%= metric_name %> per configuration, median of repeats with 95% intervals; changes against
          <strong><%= @summary["baseline"] %></strong>, called a difference only when the whole interval lies beyond
          ±<%= NOISE_PCT %>%.</p>
          <table class="verdict-table">
          <thead><tr><%- HEADERS.each do |header| -%><th scope="col"><%= header %></th><%- end -%></tr></thead>
          <tbody>
          <%- @configs.each do |config| -%>
          <tr><th scope="row"><%= config["name"] %></th>
          <%- if config["repeats"].to_i.positive? -%>
          <%- cells(config).each do |cell| -%><td><%= cell %></td><%- end -%>
          <%- else -%>
          <td colspan="7" class="warning"><%= why_unmeasured(config) %>
          <%- if Array(config["output_tail"]).any? -%><details><summary>last output</summary>
          <pre><%= Array(config["output_tail"]).join("\n") %></pre></details><%- end -%></td>
          <%- end -%>
          </tr>
          <%- end -%>
          </tbody>
          </table>
        ERB

        private

        def metric_name
          @summary["metric"] == "steady_pss_kb" ? "Steady PSS (summed over processes)" : "Steady RSS"
        end

        def cells(config)
          vs = config["vs_baseline"] || {}
          [with_interval(config["steady_rss_kb"]), change(vs["rss_pct"], vs["rss_pct_ci"], vs["significant"]),
           mb(config.dig("peak_rss_kb", "median")), number(config.dig("rps", "median"), 0),
           change(vs["rps_pct"], vs["rps_pct_ci"], vs["rps_significant"]),
           number(config.dig("latency_ms", "p99", "median"), 1), config["errors"].to_s]
        end

        def with_interval(figure)
          return "—" unless figure && figure["median"]

          low, high = figure["ci"]
          text = number(figure["median"] / 1024.0, 1)
          low ? "#{text} (#{number(low / 1024.0, 1)} … #{number(high / 1024.0, 1)})" : text
        end

        def why_unmeasured(config)
          return "failed: #{config['failed']}" if config["failed"]

          "unavailable: #{config['unavailable_reason'] || 'not run'}"
        end
      end
    end
  end
end
