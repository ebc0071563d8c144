# frozen_string_literal: true

require "test_helper"
require "json"

# A budget's words (Report::BudgetSentences), for the terminal and every view that shows a budget: the verdict names
# each figure over its allowance with its change and interval, and a failed budget says how to look and how to accept
# it; a pass says which figures could not be gated. The JSON view writes the summary as it is and reloads the same.
class BudgetSentencesTest < Minitest::Test
  Summary = Mallard::Summary
  Gate = Mallard::Analysis::BudgetGate

  def test_a_failed_budget_names_the_figure_and_says_what_to_do
    sentences = Mallard::Report::BudgetSentences.new(budget(figure("steady_pss_kb", [40_100, 40_500, 39_900])))

    verdict = sentences.verdict
    assert_match %r{\AOver budget: steady memory \(summed PSS\) of /rows rose \+\d+\.\d% \(\+\d+\.\d … \+\d+\.\d\)},
                 verdict
    assert verdict.end_with?(", all of it above its allowance of +5%."), verdict
    look, accept = sentences.advice
    assert_includes look, "mallard heap app --path /rows"
    assert_includes look, "mallard diff A B"
    assert_includes look, "/runs/b/entry-1-run-1"
    assert_equal "Accept it deliberately: `mallard budget app --update`, then commit app/mallard-budget.json.", accept
  end

  def test_a_pass_says_which_figures_could_not_fail
    summary = budget(figure("steady_pss_kb", [33_000, 33_100, 32_900]), figure("live_slots", [38_000]))
    sentences = Mallard::Report::BudgetSentences.new(summary)

    assert_equal "Within budget: no figure's interval lies wholly above its allowance. 1 figure had no interval " \
                 "(too few repeats) and cannot fail.", sentences.verdict
    assert_empty sentences.advice
    row = sentences.figure_row(summary.entries.first, summary.entries.first.figures.last)
    assert_equal ["/rows", "live slots at the end", "32,100, 32,862, 33,160", "38,000",
                  "+16.2% (no interval: a single run in B)", "+5%", "no interval: not gated"], row
  end

  def test_the_summary_reloads_as_it_was
    summary = budget(figure("steady_pss_kb", [40_100, 40_500, 39_900]))

    assert_equal summary, Summary::Budget.from_h(JSON.parse(JSON.generate(Mallard::Value.plain(summary))))
  end

  private

  def figure(name, measured, baseline: [32_100, 32_862, 33_160])
    verdict, change = Gate.call(measured, baseline, 5.0)
    Summary::BudgetFigure.new(name: name, max_increase_pct: 5.0, verdict: verdict, baseline: baseline,
                              measured: measured, change: change)
  end

  def budget(*figures)
    entry = Summary::BudgetEntry.new(name: "/rows", paths: ["/rows"], runs: ["/runs/b/entry-1-run-1"], figures: figures)
    verdict = figures.any?(&:over?) ? "over" : "within"
    Summary::Budget.new(kind: "budget", status: "complete", run_dir: "/runs/b", file: "app/mallard-budget.json",
                        app: "app", repeat: 3, update: false, verdict: verdict, entries: [entry])
  end
end
