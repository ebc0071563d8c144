# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A soak's conclusion: whether it is a measurement at all, does memory grow, how fast and how sure, what
      # memory it settles at, and what the app itself showed (in-app time, chunked bodies, flags).
      class SoakVerdictView < View
        # @param summary [Summary::Soak]
        def initialize(summary)
          super()
          @summary = summary
          @sentences = SoakSentences.new(summary)
          @verdict = summary.verdict
          @memory = summary.memory || Summary::Memory.new
          @app = summary.app
        end

        template <<~'ERB'
          <section id="verdict">
          <h2>Verdict</h2>
          <%- if failed? -%>
          <p class="verdict warning">Failed measurement: <%= @sentences.reason %>. No verdict.</p>
          <%- end -%>
          <%- problems.each do |problem| -%>
          <p class="warning">Not a valid measurement: <%= problem %></p>
          <%- end -%>
          <%- if (conclusion = @sentences.conclusion) -%>
          <p class="verdict"><strong><%= verdict_word(@verdict.overall) %></strong>: <%= conclusion %></p>
          <%- end -%>
          <%- if (ended = UntilDecidedSentences.ending(@summary.until_decided)) -%>
          <p class="note"><%= ended %></p>
          <%- end -%>
          <%- if @verdict&.memory -%>
          <p class="verdict">Memory: <strong><%= @verdict.memory %></strong><%= slope %></p>
          <p class="note"><%= @sentences.memory_basis %></p>
          <%- end -%>
          <%- if @verdict&.live_set -%>
          <p class="verdict">Live set: <strong><%= @verdict.live_set %></strong></p>
          <%- end -%>
          <%- if @sentences.memory_hint -%><p>Memory: <%= @sentences.memory_hint %>.</p><%- end -%>
          <h3>Memory</h3>
          <%= Figures.new(memory_rows) %>
          <%= ProcessTable.new(@memory.per_process) if @memory.processes.to_i > 1 %>
          <%- if @app -%>
          <h3>In the app</h3>
          <%= Figures.new(app_rows) %>
          <%- end -%>
          <%- unless flags.empty? -%>
          <h3>Flags</h3>
          <ul class="flags"><%- flags.each do |flag| -%><li><%= flag %></li><%- end -%></ul>
          <%- end -%>
          </section>
        ERB

        private

        def failed? = @summary.status == "failed"

        def problems = Array(@summary.validity&.problems)

        def slope = @sentences.memory_slope&.then { |sentence| " · #{sentence}" }

        def memory_rows
          [["Steady RSS", mib(@memory.steady_rss_kb)], ["Steady PSS", mib(@memory.steady_pss_kb)],
           ["Peak RSS", mib(@memory.peak_rss_kb)], ["Final RSS", mib(@memory.final_rss_kb)],
           ["Processes", @memory.processes], ["Samples", @memory.samples], ["Allocator", allocator],
           *script_rows]
        end

        def allocator
          diagnosis = @summary.allocator
          diagnosis && "#{diagnosis.allocator} (#{diagnosis.via}) #{diagnosis.library}".strip
        end

        def script_rows
          script = @summary.script
          return [] unless script

          [["Script wall time", "#{script.wall_s} s"], ["Script exit status", script.exit_status.inspect]]
        end

        def app_rows
          chunks = @app.chunks_per_response || {}
          [["Requests measured (a random sample)", count(@app.requests_recorded)],
           ["In-app time", milliseconds(@app.in_app_ms)],
           ["Body iteration", @app.body_ms&.p50 && milliseconds(@app.body_ms)],
           ["Chunks per response", chunks["p50"] && "median #{number(chunks['p50'], 0)}, max #{chunks['max']}"]]
        end

        def milliseconds(figures)
          figures && "#{%i[p50 p90 p99].map { |p| "#{p} #{number(figures[p], 3)}" }.join(' · ')} ms"
        end

        def flags = Array(@app&.flags)
      end
    end
  end
end
