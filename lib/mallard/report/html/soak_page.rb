# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A soak's report: what ran and how it ended, the verdict, memory, load and GC over time, and the run's
      # metadata. A run killed before it wrote summary.json arrives here summarised from its raw files, and
      # reads like any other.
      class SoakPage
        # @param summary [Summary::Soak]
        # @param meta [Run::Meta]
        # @param gc_first [Boolean] GC before memory (RunKind#gc_first?: a gc run)
        def initialize(summary, meta:, gc_first: false)
          @summary = summary
          @meta = meta
          @gc_first = gc_first
          @sentences = SoakSentences.new(summary)
          @charts = SoakCharts.new(summary.series, judged: !summary.verdict&.memory.nil?, script: !summary.script.nil?)
        end

        def title = "mallard #{kind} — #{description}"

        def sections
          memory = [memory_section, roles_section].compact
          middle = @gc_first ? [gc_section, *memory, load_section] : [*memory, load_section, gc_section]
          [header, SoakVerdictView.new(@summary).to_s, *middle, MetadataView.new(@meta).to_s]
        end

        private

        def memory_section
          Section.new(id: "memory", title: "Memory over time",
                      parts: [@charts.memory.to_html, *@sentences.container,
                              SharingChart.new(@summary.sharing_decay).to_html, *@sentences.sharing,
                              ledger_chart]).to_s
        end

        # A job backend's tree by role: each role's PSS over time, and its figures, verdict and ledger; nil without.
        def roles_section
          return unless @summary.roles&.any?

          words = @sentences.per_role
          Section.new(id: "roles", title: "Memory per role",
                      parts: [RoleChart.new(@summary.roles).to_html, RoleTable.new(@summary.roles, words: words).to_s,
                              words.basis]).to_s
        end

        def ledger_chart
          LedgerChart.new(@summary.ledger, sentence: @sentences.ledger, pss: @sentences.ledger_pss).to_html
        end

        def kind = @summary.kind || "soak"

        def description = @summary.target&.description || @meta.target&.description

        def header
          HeaderView.new(kind: kind, description: description, status: @summary.status, reason: @sentences.reason,
                         path: @summary.run_dir, notes: header_notes).to_s
        end

        def header_notes
          notes = []
          if @summary.status == "running"
            notes << "The run never said it ended (mallard was killed, or it is still running): these are the " \
                     "figures of what it recorded."
          end
          skipped = @summary.skipped_lines.to_i
          notes << "#{skipped} damaged sample line#{'s' unless skipped == 1} skipped." if skipped.positive?
          [*notes, @sentences.instrumented].compact
        end

        # A job worker's load is its jobs.
        def load_section
          if @summary.jobs
            parts = [@charts.jobs.to_html, JobsView.new(@summary.jobs).to_s,
                     JobClassTable.new(@sentences.job_classes).to_s]
            return Section.new(id: "jobs", title: "Jobs: throughput, queue wait and the queues", parts: parts).to_s
          end

          parts = [@charts.requests.to_html, LoadView.new(@summary.load, ramp: @sentences.ramp).to_s]
          Section.new(id: "load", title: "Load: requests per second and latency", parts: parts).to_s
        end

        def gc_section
          parts = [GcView.new(@summary).to_s, @charts.gc_time.to_html, @charts.live_slots.to_html,
                   @charts.gc_runs.to_html]
          Section.new(id: "gc", title: "GC and the live set", parts: parts).to_s
        end
      end
    end
  end
end
