# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard boot`: the app booted in repeats, its RSS put on the gems that required it.
    class Boot < RunKind
      def name = "boot"
      def reader = Run::BootReader
      def terminal_view = Report::BootTerminal
      def html_page(summary, meta:, **) = Report::Html::BootPage.new(summary, meta: meta)
      def summarise(run) = Analysis::BootSummary.call(run)

      # The records' damaged lines matter only when the summary was computed from them.
      def skipped_lines(run, _summary) = recomputed?(run) ? run.skipped.to_i : 0

      def diff_metrics = { Analysis::RunDiff::BOOT_METRIC => Analysis::RunDiff::WORSE[Analysis::RunDiff::BOOT_METRIC] }

      def diff(before, after, **) = Analysis::RunDiff.boots(before.summary, after.summary)
      def diff_row = "boot"

      # A boot is gated on its total (the first row): a small gem's share can move by many % and matter little.
      def gated_rows(rows) = rows.first(1)
    end

    register(Boot.new)
  end
end
