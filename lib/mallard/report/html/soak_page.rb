# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A soak's report: what ran and whether it finished, the verdict, memory, load and GC over time,
      # and the run's metadata.
      class SoakPage
        def initialize(run)
          @run = run
          @summary = run.summary
          @charts = SoakCharts.new(run)
        end

        def title = "mallard soak — #{description}"

        def sections
          [header, verdict, Section.new(id: "memory", title: "Memory over time", parts: [@charts.memory.to_html]).to_s,
           load_section, gc_section, MetadataView.new(@run.meta).to_s]
        end

        private

        def description
          (@summary || @run.meta).dig("target", "description")
        end

        def header
          HeaderView.new(kind: "soak", description: description, status: status, reason: reason,
                         path: @run.path, notes: header_notes).to_s
        end

        # A run killed before it wrote summary.json says "running" in meta.json: it did not finish.
        def status = @summary ? @summary["status"] : @run.phases["status"]

        def reason = @summary ? @summary["reason"] : @run.phases["reason"]

        def header_notes
          return [] if @summary

          ["No summary.json in this run directory (the run was stopped before writing one): no verdict or " \
           "figures, only the samples it recorded."]
        end

        def verdict
          return SoakVerdictView.new(@summary).to_s if @summary

          Section.new(id: "verdict", title: "Verdict", parts: ["No verdict without summary.json."]).to_s
        end

        def load_section
          parts = [@charts.requests.to_html, (LoadView.new(@summary["load"]).to_s if @summary)]
          Section.new(id: "load", title: "Load: requests per second and latency", parts: parts).to_s
        end

        def gc_section
          parts = [(GcView.new(@summary["gc"]).to_s if @summary), @charts.gc_runs.to_html, @charts.live_slots.to_html]
          Section.new(id: "gc", title: "GC activity", parts: parts).to_s
        end
      end
    end
  end
end
