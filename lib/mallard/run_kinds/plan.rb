# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard plan`: how many Puma workers fit a memory limit, predicted from soaks of a measured shape and checked
    # by a soak of the count chosen; its soaks are runs of their own.
    class Plan < RunKind
      def name = "plan"
      def reader = Run::PlanReader
      def terminal_view = Report::PlanTerminal
      def html_page(summary, meta:, **) = Report::Html::PlanPage.new(summary, meta: meta)
      def summarise(run) = Analysis::PlanSummary.call(run)
    end

    register(Plan.new)
  end
end
