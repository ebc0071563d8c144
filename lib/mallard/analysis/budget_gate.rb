# frozen_string_literal: true

module Mallard
  module Analysis
    # The budget's one rule for a figure: its values now against the baseline's, by the one change rule (Change: the
    # ratio of geometric means, Welch's 95% interval on logs). It is over budget only when the WHOLE interval lies
    # above the allowance: a rise the repeats cannot tell from noise, or one whose interval reaches under the
    # allowance, passes. No interval (a single repeat on either side) never fails, and the verdict says so.
    # Two builds of the same code are as likely to come out above as below, and their interval spans the true
    # change of zero 95 times in 100, so an A/A fails far less often than 1 in 20 (bench/budget_aa.rb).
    module BudgetGate
      module_function

      # @param measured [Array<Numeric>] this run's values of the figure, one per repeat
      # @param baseline [Array<Numeric>] the budget file's
      # @param allowance_pct [Numeric] max_increase_pct
      # @return [Array(String, Summary::Change)] the verdict (Summary::BudgetFigure's words) and the change
      def call(measured, baseline, allowance_pct)
        values = Array(measured).compact
        return ["no_baseline", nil] if Array(baseline).empty?
        return ["unmeasured", nil] if values.empty?

        change = Change.call(values, baseline)
        [verdict(change, allowance_pct), change]
      end

      def verdict(change, allowance_pct)
        return "no_interval" unless change.ci

        change.ci.first > allowance_pct ? "over" : "within"
      end
    end
  end
end
