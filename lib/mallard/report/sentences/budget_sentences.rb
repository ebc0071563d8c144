# frozen_string_literal: true

module Mallard
  module Report
    # The sentences of a budget (`mallard budget`), written once for its terminal and JSON-reading views: the verdict,
    # a row per figure guarded, and, when a figure is over its allowance, what to do: which figure by how much with its
    # interval, how to look (heap, diff) and how to accept the change deliberately (--update, commit the file).
    class BudgetSentences
      include Formatting

      FIGURES = { "steady_pss_kb" => "steady memory (summed PSS)", "allocations_per_request" => "allocations/request",
                  "live_slots" => "live slots at the end" }.freeze
      VERDICTS = { "over" => "OVER", "within" => "within", "no_interval" => "no interval: not gated",
                   "no_baseline" => "no baseline yet", "unmeasured" => "not measured",
                   "updated" => "new baseline" }.freeze

      # @param summary [Summary::Budget]
      def initialize(summary)
        @summary = summary
      end

      def all = [verdict, *advice, repeats, how].compact

      # The one line a CI log is read for.
      def verdict
        case @summary.verdict
        when "over" then "Over budget: #{@summary.failures.map { |entry, figure| over(entry, figure) }.join('; ')}."
        when "within" then "Within budget: no figure's interval lies wholly above its allowance.#{unguarded}"
        when "updated" then "Budget updated: #{file} now keeps the values measured as its baselines; commit it."
        end
      end

      # What to do when the budget fails: how to look, and how to accept it.
      def advice
        return [] unless @summary.over?

        paths = @summary.failures.flat_map { |entry, _| entry.paths }.uniq
        heap = paths.map { |path| "mallard heap #{app} --path #{path}" }.join(", ")
        ["Look: #{heap} shows which allocation sites keep objects alive; `mallard diff A B` sets a soak of the main " \
         "branch (A) against one of this run's (B: #{first_run}).",
         "Accept it deliberately: `mallard budget #{app} --update`, then commit #{file}."]
      end

      def repeats
        format("%s of the current code against the baseline's kept in %s; builds cannot be interleaved, so a drift " \
               "of the machine between the two counts as a change.", plural(@summary.repeat.to_i, "repeat"), file)
      end

      def how = ("How: #{@summary.methodology}." if @summary.methodology)

      # How the budget ended, when it did not complete.
      def budget_ending = ending(@summary, outcome: "budget verdict")

      def figure_header = ["entry", "figure", "baseline", "now", "change (95% interval)", "allowance", ""]

      def figure_row(entry, figure)
        [entry.name, FIGURES.fetch(figure.name, figure.name), values(figure.name, figure.baseline),
         values(figure.name, figure.measured), moved(figure), format("+%g%%", figure.max_increase_pct),
         VERDICTS.fetch(figure.verdict.to_s, figure.verdict.to_s)]
      end

      private

      def over(entry, figure)
        format("%s of %s rose %s, all of it above its allowance of +%g%%", FIGURES.fetch(figure.name, figure.name),
               entry.name, Words.change(figure.change.pct, figure.change.ci), figure.max_increase_pct)
      end

      # Figures a budget could not gate, said beside a pass so that a pass is not read as more than it is.
      def unguarded
        figures = @summary.entries.flat_map(&:figures)
        missing = figures.count { |figure| figure.verdict == "no_interval" }
        fresh = figures.count { |figure| figure.verdict == "no_baseline" }
        text = ""
        text += " #{plural(missing, 'figure')} had no interval (too few repeats) and cannot fail." if missing.positive?
        text += " #{plural(fresh, 'figure')} had no baseline: run --update." if fresh.positive?
        text
      end

      def moved(figure)
        change = figure.change
        return "—" unless change&.pct

        change.ci ? Words.change(change.pct, change.ci) : "#{Words.change(change.pct)} (#{change.note})"
      end

      def values(name, list)
        return "—" if Array(list).empty?

        list.map { |value| name.end_with?("_kb") ? format("%.1f", value / 1024.0) : count(value) }.join(", ") +
          (name.end_with?("_kb") ? " MiB" : "")
      end

      def file = Text.printable(@summary.file || Run::BudgetFile::NAME)
      def app = Text.printable(@summary.app || ".")
      def first_run = Text.printable(@summary.failures.first&.first&.runs&.first || @summary.run_dir.to_s)
    end
  end
end
