# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A comparison's report: how it ended, the verdict table and the recommendation first, then memory and
      # throughput over time per configuration (from its soaks' summaries), then metadata.
      class ComparePage
        # @param summary [Summary::Compare]
        # @param meta [Run::Meta]
        # @param soaks [Hash{String=>Array<Summary::Soak>}]
        def initialize(summary, meta:, soaks:)
          @summary = summary
          @sentences = CompareSentences.new(summary)
          @meta = meta
          @charts = CompareCharts.new(summary, soaks)
        end

        def title = "mallard compare — #{description}"

        def sections
          [header, verdict, recommendation,
           Section.new(id: "memory", title: "Memory over time", parts: [@charts.memory.to_html]).to_s,
           load_section, MetadataView.new(@meta).to_s]
        end

        private

        def description = @summary.target&.description || @meta.target&.description

        def header
          HeaderView.new(kind: "compare", description: description, status: @summary.status,
                         reason: @summary.reason, path: @summary.run_dir).to_s
        end

        def verdict
          parts = [CompareTableView.new(@summary).to_s, @sentences.figures_from, @sentences.like, *@sentences.trees,
                   yjit, *@sentences.resolution,
                   *@sentences.gc_suggestions, @sentences.agent_cost].compact
          Section.new(id: "verdict", title: "Verdict", parts: parts).to_s
        end

        # --yjit's table and decisions, where the comparison had YJIT rows.
        def yjit
          yjit = @sentences.yjit
          CompareYjitView.new(yjit).to_s if yjit.any?
        end

        def recommendation
          RecommendationView.new(@summary.recommendation, words: @sentences.recommendation,
                                                          snippets: DeploySnippets.titled(@summary),
                                                          reason: @summary.reason).to_s
        end

        def load_section
          parts = [@charts.requests.to_html,
                   CompareLatencyView.new(@summary.configs, jobs: @summary.target&.jobs?).to_s]
          title = "Load: requests per second and latency"
          title = "Jobs: jobs per second and queue wait" if @summary.target&.jobs?
          Section.new(id: "load", title: title, parts: parts).to_s
        end
      end
    end
  end
end
