# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The soak that ran while `mallard heap` took its dumps, in brief: its verdict, memory and load, and its memory
      # chart as the soak's own report draws it. Allocation tracing was on throughout, so these are not the figures
      # of the app as it usually runs.
      class HeapSoakView < View
        # @param soak [Summary::Soak]
        def initialize(soak)
          super()
          @soak = soak
          @verdict = soak.verdict
          @memory = soak.memory || Summary::Memory.new
          @load = soak.load
          @labels = work_labels(soak.target)
        end

        template <<~'ERB'
          <p class="note">With allocation tracing on in the app throughout: it costs memory and time, so compare
          these figures with another heap run, not with a plain soak.</p>
          <%= Figures.new(rows) %>
          <%= SoakCharts.new(@soak.series, judged: !@verdict&.memory.nil?, script: !@soak.script.nil?).memory.to_html %>
        ERB

        private

        def rows
          [["Verdict", @verdict&.overall && [verdict_word(@verdict.overall), conclusion].compact.join(": ")],
           ["Memory", @verdict&.memory], ["Steady RSS", mib(@memory.steady_rss_kb)],
           ["Steady PSS", mib(@memory.steady_pss_kb)], ["Peak RSS", mib(@memory.peak_rss_kb)], *load_rows]
        end

        def conclusion = SoakSentences.new(@soak).conclusion

        def load_rows
          return [["Load", "no load figures recorded"]] unless @load

          [["Load", [@load.tool, @load.requests && "#{count(@load.requests)} requests"].compact.join(", ")],
           ["Throughput", @load.rps && "#{number(@load.rps, 1)} #{@labels[:rate]}"],
           ["Errors", count(@load.errors)],
           ["Latency p99", @load.latency_ms&.p99 && "#{number(@load.latency_ms.p99, 1)} ms"]]
        end
      end
    end
  end
end
