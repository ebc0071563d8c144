# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard soak`: one target under load (or a script, or a job worker) sampled throughout.
    class Soak < RunKind
      def name = "soak"
      def reader = Run::SoakReader
      def terminal(summary, color:) = Report::SoakTerminal.new(summary, color: color, gc_first: gc_first?)
      def html_page(summary, meta:, **) = Report::Html::SoakPage.new(summary, meta: meta, gc_first: gc_first?)
      def soak_kind = self

      # Whether its views lead with the GC and the live set, before memory.
      def gc_first? = false

      # A stored summary written before series were kept gets them from the records.
      def summary(run) = Analysis::SoakSummary.for(run)

      def diff_metrics = Analysis::RunDiff::WORSE.except(Analysis::RunDiff::BOOT_METRIC)

      def default_diff_metric(before, after) = Analysis::RunDiff.default_soak_metric(before.summary, after.summary)

      def diff(before, after, metric:)
        Analysis::RunDiff.soaks(side(before, metric), side(after, metric), metric: metric)
      end

      private

      # A steady-memory metric is compared on the samples of each run's steady window, the others on one figure.
      def side(opened, metric)
        key = Analysis::RunDiff::STEADY_KEYS[metric]
        return { summary: opened.summary, steady: [] } unless key

        window = Analysis::SteadyWindow.call(opened.run, warmup_samples: opened.summary.verdict&.warmup_samples)
        { summary: opened.summary, steady: window.values(key) }
      end
    end

    register(Soak.new)
  end
end
