# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A comparison's report: the verdict table and the recommendation first, then memory and
      # throughput over time per configuration (from the soak runs it holds), then metadata.
      class ComparePage
        def initialize(directory, meta:, summary:)
          @directory = directory
          @meta = meta || {}
          @summary = summary || {}
          @charts = CompareCharts.new(CompareRuns.new(directory, @summary), metric: @summary["metric"])
        end

        def title = "mallard compare — #{description}"

        def sections
          [header, verdict, RecommendationView.new(@summary["recommendation"]).to_s,
           Section.new(id: "memory", title: "Memory over time", parts: [@charts.memory.to_html]).to_s,
           load_section, MetadataView.new(@meta).to_s]
        end

        private

        def description = (@summary["target"] || @meta["target"] || {})["description"]

        def header
          notes = @summary.empty? ? ["No summary.json in this comparison's directory: it did not finish."] : []
          HeaderView.new(kind: "compare", description: description, status: @summary["status"],
                         reason: @summary["reason"], path: @directory.path, notes: notes).to_s
        end

        def verdict
          Section.new(id: "verdict", title: "Verdict", parts: [CompareTableView.new(@summary).to_s]).to_s
        end

        def load_section
          parts = [@charts.requests.to_html, CompareLatencyView.new(@summary["configs"]).to_s]
          Section.new(id: "load", title: "Load: requests per second and latency", parts: parts).to_s
        end
      end
    end
  end
end
