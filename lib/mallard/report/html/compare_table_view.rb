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
          @sentences = CompareSentences.new(summary)
          @configs = Array(summary.configs)
        end

        template <<~'ERB'
          <p><%= @sentences.metric_name %> per configuration, median of repeats with 95% intervals; changes against
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
          <%- @sentences.not_counted.each do |line| -%>
          <p class="note warning"><%= line %></p>
          <%- end -%>
        ERB

        private

        def headers
          labels = work_labels(@summary.target)
          ["Configuration", "Steady memory", "vs baseline", "Peak RSS", labels[:rate], "vs baseline",
           labels[:cpu_column], "vs baseline", labels[:latency_column], "vs baseline", labels[:errors].capitalize,
           "Memory verdicts", "Live-set verdicts"]
        end

        def cells(config)
          vs = config.vs_baseline
          [mib_interval(config.steady_rss_kb), versus(vs, :memory), mib(config.peak_rss_kb&.median),
           number(config.rps&.median, 0), versus(vs, :rps), number(config.cpu_ms_per_request&.median, 3),
           versus(vs, :cpu), number(config.latency_ms&.p99&.median, 1), versus(vs, :p99), config.errors.to_s,
           tally(config.verdicts), tally(config.live_set_verdicts)]
        end

        def why_unmeasured(config) = @sentences.unmeasured(config)
      end
    end
  end
end
