# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard heap`: a soak that took three heap dumps; its summary is what the last dump retains. The soak beside
    # it is a run of its own (`mallard report --soak`).
    class Heap < RunKind
      def name = "heap"
      def reader = Run::HeapReader
      def terminal_view = Report::HeapTerminal
      def html_page(summary, meta:, **) = Report::Html::HeapPage.new(summary, meta: meta)
      def summarise(run) = Analysis::HeapSummary.call(run)

      # The soak that ran while the dumps were taken, whose summary is beside the heap's.
      def soak(opened) = Opened.new(soak_kind, opened.run.soak)
      def soak_summary_file = "soak_summary.json"
    end

    register(Heap.new)
  end
end
