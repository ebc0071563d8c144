# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A heap run's report (`mallard heap TARGET`, or `mallard heap diff A B C` on dumps one has): how it ended,
      # what the app kept between the dumps — in all, by site (drawn and tabled), by gem and by class — the last
      # dump's generations with the window marked, the dumps and how the app answered while they were written, the
      # soak that ran meanwhile, and how it was measured. Sizes and sites only: no value from a dump is shown. A
      # run that failed before it had three dumps has no retention: its page says why and shows what it has.
      class HeapPage
        # @param summary [Summary::Heap]
        # @param meta [Run::Meta]
        def initialize(summary, meta:)
          @summary = summary
          @meta = meta
          @sentences = HeapSentences.new(summary)
        end

        def title = "mallard heap — #{description}"

        def sections
          [header, *retention, dumps_section, soak_section, method_section, metadata].compact
        end

        private

        # A diff has no target: "heap dumps", as the terminal names it.
        def description = @summary.target&.description || @meta.target&.description || "heap dumps"

        # A diff has no run: no soak ran and nothing but the report is written.
        def diff? = @summary.soak.nil?

        def measured? = !(@summary.sites.empty? && @summary.window.nil?)

        def retention
          return [] unless measured?

          [retained_section, sites_section, groups_section, generations_section].compact
        end

        def header
          HeaderView.new(kind: "heap", description: description, status: @summary.status, reason: @sentences.reason,
                         path: @summary.soak&.run_dir, notes: header_notes).to_s
        end

        def header_notes
          notes = []
          notes << "Dumps given to mallard heap diff: no soak ran, and no run directory was written." if diff?
          case @summary.status
          when "failed" then notes << "A failed measurement: no retention to show."
          when "running"
            notes << "The run never said it ended (mallard was killed, or it is still running): these are the " \
                     "figures of what it recorded."
          end
          notes
        end

        def retained_section
          chart = HeapSitesChart.new(@summary).to_html unless @summary.sites.empty?
          parts = [HeapRetainedView.new(@summary).to_s, chart]
          Section.new(id: "retained", title: "What the app kept", parts: parts).to_s
        end

        def sites_section
          Section.new(id: "sites", title: "By allocation site", parts: [HeapSitesTable.new(@summary).to_s]).to_s
        end

        def groups_section
          parts = [Safe.new("<h3>Gems</h3>"), HeapGroupsTable.new(@summary.gems, name: "Gem").to_s,
                   Safe.new("<h3>Classes</h3>"), HeapGroupsTable.new(@summary.classes, name: "Class").to_s]
          Section.new(id: "groups", title: "By gem and by class", parts: parts).to_s
        end

        def generations_section
          return if @summary.generations.empty?

          Section.new(id: "generations", title: "Dump C by generation",
                      parts: [HeapGenerationsChart.new(@summary).to_html]).to_s
        end

        def dumps_section
          return if @summary.dumps.empty?

          Section.new(id: "dumps", title: "The dumps", parts: [HeapDumpsView.new(@summary).to_s]).to_s
        end

        def soak_section
          return unless @summary.soak

          Section.new(id: "soak", title: "The soak meanwhile", parts: [HeapSoakView.new(@summary.soak).to_s]).to_s
        end

        def metadata
          MetadataView.new(@meta).to_s unless diff? && @meta.to_h.values.all?(&:nil?)
        end

        def method_section
          Section.new(id: "method", title: "How it was measured", parts: [HeapMethodView.new(@summary).to_s]).to_s
        end
      end
    end
  end
end
