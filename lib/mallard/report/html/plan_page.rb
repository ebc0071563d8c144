# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A plan's report (`mallard plan`): how it ended, the count chosen and its check, the runs, the predictions
      # around the count, the parts and how they were computed, the deploy snippets, and the run's metadata. The
      # sentences are PlanSentences', as the terminal's.
      class PlanPage
        # @param summary [Summary::Plan]
        # @param meta [Run::Meta]
        def initialize(summary, meta:)
          @summary = summary
          @meta = meta
          @sentences = PlanSentences.new(summary)
        end

        def title = "mallard plan — #{description}"

        def sections
          [header, choice_section, runs_section, parts_section, snippets_section, MetadataView.new(@meta).to_s].compact
        end

        private

        def description = @summary.target&.description || @meta.target&.description

        def header
          HeaderView.new(kind: "plan", description: description, status: @summary.status, reason: @summary.reason,
                         path: @summary.run_dir).to_s
        end

        def choice_section
          parts = [@sentences.choice, @sentences.check, table(@sentences.prediction_header, predictions)]
          Section.new(id: "plan", title: "Workers under the limit", parts: parts).to_s
        end

        def runs_section
          rows = @summary.runs.map { |run| @sentences.run_row(run) }
          Section.new(id: "runs", title: "Runs", parts: [table(@sentences.run_header, rows)]).to_s
        end

        def parts_section
          Section.new(id: "parts", title: "How it was predicted",
                      parts: [@sentences.parts, @sentences.how, @sentences.watched]).to_s
        end

        def snippets_section
          snippets = ShapeSnippets.titled(@summary)
          return if snippets.empty?

          parts = snippets.map do |title, text|
            Safe.new("<h3>#{ERB::Util.html_escape(title)}</h3>\n<pre><code>#{ERB::Util.html_escape(text)}</code></pre>")
          end
          Section.new(id: "deploy", title: "Deploy", parts: parts).to_s
        end

        def predictions = @summary.predictions.map { |prediction| @sentences.prediction_row(prediction) }

        def table(header, rows) = (PlanTable.new(header, rows).to_s unless rows.empty?)
      end
    end
  end
end
