# frozen_string_literal: true

require_relative "../value"
require_relative "../run/meta"
require_relative "figures"

module Mallard
  module Summary
    # One figure a budget guards for one entry (Analysis::BudgetGate): its name (Analysis::BudgetFigures::NAMES), the
    # allowance it may rise by (max_increase_pct), the baseline's repeated values as the budget file kept them, the
    # values measured now, and the change of those against the baseline (Summary::Change, the one change rule). verdict:
    # "over" (the whole interval above the allowance: the budget fails), "within", "no_interval" (too few repeats: never
    # fails), "no_baseline" (the file keeps none yet), "unmeasured" (this run gave no value), or "updated" (--update
    # kept the values measured as the new baseline; change then says how they moved from the old one).
    BudgetFigure = Value.define(:name, :max_increase_pct, :verdict, :baseline, :measured, change: Change) do
      def over? = verdict == "over"
    end

    # One entry of a budget: the paths its soaks loaded, the run directories of those soaks, and its figures.
    BudgetEntry = Value.define(:name, :paths, :runs, figures: [BudgetFigure])

    # `mallard budget`: the budget file's entries measured --repeat times and each figure gated on its interval against
    # the baseline the file keeps (or, with update, kept as the new baseline). verdict: "over" when a figure is over its
    # allowance, "within" when none is, "updated" after --update, nil when the run did not complete. file: the budget
    # file; app: the app directory as given, for the advice.
    Budget = Value.define(:schema_version, :kind, :status, :cause, :reason, :run_dir, :file, :app, :repeat, :update,
                          :verdict, :methodology, target: Run::TargetInfo, entries: [BudgetEntry]) do
      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)
      def complete? = status == "complete"
      def over? = verdict == "over"

      # The figures over their allowance, with their entries.
      # @return [Array(BudgetEntry, BudgetFigure)]
      def failures = entries.flat_map { |entry| entry.figures.select(&:over?).map { |figure| [entry, figure] } }
    end
  end
end
