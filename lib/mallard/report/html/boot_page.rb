# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A boot's report (`mallard boot`): how it ended and which repeats failed, the total and its parts, the
      # require tree drawn as an icicle and tabled, every gem's share, workers after fork, how it was measured, and
      # the run's metadata. A boot with no finished repeat has no figures: its page says why.
      class BootPage
        # @param summary [Summary::Boot]
        # @param meta [Run::Meta]
        def initialize(summary, meta:)
          @summary = summary
          @meta = meta
        end

        def title = "mallard boot — #{description}"

        def sections
          [header, *measured, method_section, MetadataView.new(@meta).to_s]
        end

        private

        def description = @summary.target&.description || @summary.app || @meta.target&.description

        def measured
          return [] unless @summary.total&.rss_kb.to_f.positive?

          [total_section, tree_section, gems_section, fork_section].compact
        end

        def header
          HeaderView.new(kind: "boot", description: description, status: @summary.status, reason: @summary.reason,
                         path: nil, notes: header_notes).to_s
        end

        def header_notes
          notes = @summary.failures.map do |failure|
            "Repeat #{failure.repeat} failed: #{failure.reason}#{" (#{failure.where})" if failure.where}"
          end
          if @summary.status == "running"
            notes << "The run never said it ended (mallard was killed, or it is still running): these are the " \
                     "figures of the repeats it finished."
          end
          notes
        end

        def total_section
          Section.new(id: "total", title: "The boot in all", parts: [BootTotalView.new(@summary).to_s]).to_s
        end

        def tree_section
          parts = [tree_intro, *@summary.reading, (IcicleChart.new(@summary).to_html unless @summary.tree.empty?),
                   BootTreeTable.new(@summary.tree).to_s]
          Section.new(id: "tree", title: "The require tree", parts: parts).to_s
        end

        # Plain text: the section escapes it and sets it as a note.
        def tree_intro
          cutoff = format("%g", @summary.cutoff_kb.to_f / 1024)
          return "No require cost #{cutoff} MiB or more." if @summary.tree.empty?

          "Requires of #{cutoff} MiB or more, inclusive of what each required first, median over the repeats with " \
            "its 95% interval. self: what a require leaves without its children."
        end

        def gems_section
          return if @summary.gems.empty?

          Section.new(id: "gems", title: "Gems", parts: [BootGemsTable.new(@summary.gems).to_s]).to_s
        end

        def fork_section
          return unless @summary.fork

          Section.new(id: "fork", title: "Workers after fork", parts: [BootForkView.new(@summary.fork).to_s]).to_s
        end

        def method_section
          Section.new(id: "method", title: "How it was measured", parts: [BootMethodView.new(@summary).to_s]).to_s
        end
      end
    end
  end
end
