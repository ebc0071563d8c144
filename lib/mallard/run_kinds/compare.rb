# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard compare`: one target under each configuration, repeated; its soaks are runs of their own.
    class Compare < RunKind
      def name = "compare"
      def reader = Run::CompareReader
      def terminal_view = Report::CompareTerminal
      def html_page(summary, meta:, soaks: {}) = Report::Html::ComparePage.new(summary, meta: meta, soaks: soaks)
      def html_soaks(run) = Analysis::CompareSummary.soaks(run)

      # A comparison stopped before its summary is not summarised again: its soaks are listed to report instead.
      def summary(run) = Analysis::CompareSummary.for(run)
      def recomputed?(_run) = false

      def diff_metrics = Analysis::RunDiff::WORSE.except(Analysis::RunDiff::BOOT_METRIC)

      def default_diff_metric(before, after) = Analysis::RunDiff.default_compare_metric(before.summary, after.summary)

      def diff(before, after, metric:) = Analysis::RunDiff.compares(before.summary, after.summary, metric: metric)

      # A diff has a row per configuration, any of which can fail --fail-over.
      def diff_row = "configuration"
      def fail_over_names_row? = true
    end

    register(Compare.new)
  end
end
