# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The load as the load generator saw it: requests, throughput, errors and latency percentiles.
      class LoadView < View
        PERCENTILES = %i[p50 p90 p99 max mean].freeze

        # @param load [Summary::Load, nil]
        # @param ramp [String, nil] how `--concurrency auto` chose the load (SoakSentences#ramp)
        def initialize(load, ramp: nil)
          super()
          @load = load
          @ramp = ramp
        end

        template <<~'ERB'
          <%- if @load -%>
          <%= Figures.new(rows) %>
          <%- if @ramp -%>
          <p class="note"><%= @ramp %></p>
          <%- end -%>
          <h3>Latency</h3>
          <table class="latency">
          <thead><tr><%- latencies.each do |name, _| -%><th scope="col"><%= name %></th><%- end -%></tr></thead>
          <tbody><tr><%- latencies.each do |_, value| -%><td><%= number(value, 1) %> ms</td><%- end -%></tr></tbody>
          </table>
          <p class="note">Latency percentiles are for the whole run: <%= @load.tool %> reports no latency over
          time, so none is drawn.</p>
          <%- else -%>
          <p class="note">No load figures were recorded (a script, or a run stopped before the load ended).</p>
          <%- end -%>
        ERB

        private

        def rows
          [["Load generator", @load.tool], ["Requests", count(@load.requests)],
           ["Duration", @load.duration_s && "#{number(@load.duration_s, 1)} s"],
           ["Throughput", @load.rps && "#{number(@load.rps, 1)} req/s"],
           ["The app's CPU per request", cpu], ["Open loop", pacing], ["Beside it", neighbours], ["Errors", errors],
           ["Status codes", (@load.status_codes || {}).map { |code, n| "#{code}: #{count(n)}" }.join(", ")]]
        end

        def cpu
          "#{number(@load.cpu_ms_per_request, 3)} ms (#{number(@load.cpu_s, 1)} s in all)" if @load.cpu_ms_per_request
        end

        def pacing
          return unless @load.target_rate

          "#{number(@load.target_rate, 0)} req/s asked; #{number(@load.late_pct, 1)}% of requests left late " \
            "(up to #{number(@load.max_late_ms, 0)} ms)"
        end

        def neighbours
          "#{@load.neighbours} more copies of the app on its CPUs, each loaded alike (--neighbours)" if @load.neighbours
        end

        # The count, its share of the requests attempted, and the kinds.
        def errors
          kinds = (@load.errors_by_kind || {}).select { |_, n| n.to_i.positive? }
          parts = [@load.error_pct && "#{number(@load.error_pct, 1)}% of requests",
                   *kinds.map { |kind, n| "#{kind} #{n}" }].compact
          parts.empty? ? @load.errors.to_i.to_s : "#{@load.errors.to_i} (#{parts.join(', ')})"
        end

        def latencies
          figures = @load.latency_ms || Summary::Percentiles.new
          PERCENTILES.map { |name| [name.to_s, figures[name]] }.reject { |row| row[1].nil? }
        end
      end
    end
  end
end
