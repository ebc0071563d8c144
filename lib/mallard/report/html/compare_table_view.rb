# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The comparison's verdict table, as the terminal shows it: per configuration the median of its
      # repeats with 95% intervals, the change against the baseline by its finding, the leak verdicts of its
      # runs, and the runs shown but not counted.
      class CompareTableView < View
        NOISE_PCT = format("%g", Analysis::Significance::NOISE_PCT)

        # @param summary [Summary::Compare]
        def initialize(summary)
          super()
          @summary = summary
          @configs = Array(summary.configs)
        end

        template <<~'ERB'
          <p><%= metric_name %> per configuration, median of repeats with 95% intervals; changes against
          <strong><%= @summary.baseline %></strong>, called a difference only when the whole interval lies beyond
          ±<%= NOISE_PCT %>%.</p>
          <div class="wide">
          <table class="verdict-table">
          <thead><tr><%- headers.each do |header| -%><th scope="col"><%= header %></th><%- end -%></tr></thead>
          <tbody>
          <%- @configs.each do |config| -%>
          <tr><th scope="row"><%= config.name %></th>
          <%- if config.repeats.to_i.positive? -%>
          <%- cells(config).each do |cell| -%><td><%= cell %></td><%- end -%>
          <%- else -%>
          <td colspan="<%= headers.size - 1 %>" class="warning"><%= why_unmeasured(config) %>
          <%- if Array(config.output_tail).any? -%><details><summary>last output</summary>
          <pre><%= Array(config.output_tail).join("\n") %></pre></details><%- end -%></td>
          <%- end -%>
          </tr>
          <%- end -%>
          </tbody>
          </table>
          </div>
          <%- not_counted.each do |name, runs, problems| -%>
          <p class="note warning"><strong><%= name %></strong>: <%= runs %> not counted<%= ": #{problems}" unless problems.empty? %></p>
          <%- end -%>
        ERB

        private

        def headers
          labels = work_labels(@summary.target)
          ["Configuration", "Steady memory (MiB)", "vs baseline", "Peak RSS", labels[:rate], "vs baseline",
           labels[:cpu], "vs baseline", labels[:p99], "vs baseline", labels[:errors].capitalize, "Memory verdicts",
           "Live-set verdicts"]
        end

        def metric_name
          @summary.metric == "steady_pss_kb" ? "Steady PSS (summed over processes)" : "Steady RSS"
        end

        def cells(config)
          vs = config.vs_baseline
          [with_interval(config.steady_rss_kb), versus(vs, :memory), mib(config.peak_rss_kb&.median),
           number(config.rps&.median, 0), versus(vs, :rps), number(config.cpu_ms_per_request&.median, 3),
           versus(vs, :cpu), number(config.latency_ms&.p99&.median, 1), versus(vs, :p99), config.errors.to_s,
           tally(config.verdicts), tally(config.live_set_verdicts)]
        end

        def with_interval(figure)
          return "—" unless figure&.median

          low, high = figure.ci
          text = number(figure.median / 1024.0, 1)
          low ? "#{text} (#{number(low / 1024.0, 1)} … #{number(high / 1024.0, 1)})" : text
        end

        def why_unmeasured(config)
          return "failed: #{config.failed}" if config.failed

          "unavailable: #{config.unavailable_reason || 'not run'}"
        end

        # [name, "1 run", "why; why"] for each configuration with runs shown but not counted.
        def not_counted
          @configs.select { |config| config.invalid_runs.to_i.positive? }.map do |config|
            row = Array(@summary.rows).find { |candidate| candidate.name == config.name }
            problems = Array(row&.invalid_runs).flat_map { |run| Array(run.problems) }.uniq
            [config.name, plural(config.invalid_runs, "run"), problems.join("; ")]
          end
        end
      end
    end
  end
end
