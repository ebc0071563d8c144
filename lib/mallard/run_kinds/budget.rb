# frozen_string_literal: true

module Mallard
  class RunKind
    # `mallard budget`: the budget file's entries soaked with repeats and each figure gated on its interval against the
    # baseline the file keeps; its soaks are runs of their own. It is a comparison already (now against the baseline),
    # so it is not diffed, and it has no HTML view.
    class Budget < RunKind
      def name = "budget"
      def reader = Run::BudgetReader
      def terminal_view = Report::BudgetTerminal
      def html? = false
      def summarise(run) = Analysis::BudgetSummary.call(run)
    end

    register(Budget.new)
  end
end
