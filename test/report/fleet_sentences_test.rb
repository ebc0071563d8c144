# frozen_string_literal: true

require "test_helper"

# The words of a fleet's --fail-over (FleetSentences): the change that failed it, in the terminal and the command's
# error line alike; a summary.json of an older mallard, which stored the sentence, shows it as stored.
class FleetSentencesTest < Minitest::Test
  FAILED = "B uses +23.4% (+20.1 … +26.0) more than A, over --fail-over 5%"

  def test_a_failed_gate_says_by_how_much_b_uses_more
    summary = fleet("threshold_pct" => 5.0, "failed" => true, "pct" => 23.4, "ci" => [20.1, 26.0])

    assert_equal FAILED, sentences(summary).fail_over
    assert_includes sentences(summary).all, FAILED
    assert_includes terminal(summary), "--fail-over: #{FAILED}"
  end

  def test_a_passed_gate_has_no_sentence_of_its_own
    summary = fleet("threshold_pct" => 5.0, "failed" => false)

    assert_nil sentences(summary).fail_over
    assert_includes terminal(summary), "--fail-over 5%: passed"
  end

  def test_an_older_summarys_sentence_is_shown_as_stored
    summary = fleet("threshold_pct" => 5.0, "failed" => true, "reason" => "B uses more, as an older mallard said")

    assert_equal "B uses more, as an older mallard said", sentences(summary).fail_over
  end

  PREDICTION = { "run" => "runs/compare", "config" => "glibc-arena2", "baseline" => "glibc",
                 "metric" => "steady_rss_kb", "pct" => -28.8, "ci" => [-38.1, -18.0], "chosen_by" => "recommendation" }
               .freeze

  def test_the_labs_prediction_against_the_fleets_change
    summary = fleet(nil).with(expectation: Mallard::Analysis::Expectation.call(
      Mallard::Summary::Prediction.from_h(PREDICTION),
      Mallard::Summary::Change.new(pct: -21.3, ci: [-24.0, -18.5]), processes: [8, 4], window_s: 30, metric: "pss"
    ))

    assert_equal "As predicted: B against A -21.3% (-24.0 … -18.5); the lab predicted -28.8% (-38.1 … -18.0) for " \
                 "glibc-arena2 against glibc (runs/compare, its recommendation). Note: the lab compared " \
                 "steady_rss_kb, the fleet pss.", sentences(summary).expectation
    assert_includes terminal(summary), "  As predicted: B against A -21.3%"
  end

  def test_undecided_says_what_would_decide_it
    summary = fleet(nil).with(expectation: Mallard::Analysis::Expectation.call(
      Mallard::Summary::Prediction.from_h(PREDICTION.merge("metric" => "steady_pss_kb", "chosen_by" => "given")),
      Mallard::Summary::Change.new(pct: -15.0, ci: [-35.0, 5.0]), processes: [8, 8], window_s: 1800, metric: "pss"
    ))

    assert_equal "Not yet decided: B against A -15.0% (-35.0 … +5.0); the lab predicted -28.8% (-38.1 … -18.0) for " \
                 "glibc-arena2 against glibc (runs/compare, as named). B's interval holds both no change and the " \
                 "change predicted; about 15 more processes (7.5 process-hours over this window) would decide it.",
                 sentences(summary).expectation
  end

  def test_a_shortfall_names_the_part_or_says_the_lab_kept_no_ledger
    short = Mallard::Summary::Change.new(pct: 0.4, ci: [-2.1, 3.0])
    ledger = { "ledger_kb" => { "malloc held free" => -122_880 } }
    with_ledger = Mallard::Summary::Prediction.from_h(PREDICTION.merge(ledger))
    named = expecting(with_ledger, short, parts: { "malloc held free" => -1024.0 })
    bare = expecting(Mallard::Summary::Prediction.from_h(PREDICTION), short, parts: { "malloc held free" => -1024.0 })

    assert_includes sentences(named).expectation, " The part furthest from the prediction: malloc held free, " \
                                                  "predicted -120.0 MiB a process, observed -1.0 MiB."
    assert_includes sentences(bare).expectation,
                    " The comparison kept no memory ledger to set the fleet's parts against."
  end

  private

  def expecting(prediction, change, parts:)
    fleet(nil).with(expectation: Mallard::Analysis::Expectation.call(prediction, change, processes: [4, 4],
                                                                                         window_s: 30, metric: "rss",
                                                                                         parts: parts))
  end

  def fleet(gate)
    Mallard::Summary::Fleet.from_h(
      "kind" => "fleet", "status" => "complete", "methodology" => "Hodges–Lehmann shift", "metric" => "pss",
      "since_s" => 60, "step_s" => 1, "a" => { "name" => "A", "processes" => 5 },
      "b" => { "name" => "B", "processes" => 5 }, "smallest_sizes" => [[4, 4]],
      "change" => { "pct" => 23.4, "ci" => [20.1, 26.0], "noise_pct" => 1.0, "finding" => "different" },
      "fail_over" => gate
    )
  end

  def sentences(summary) = Mallard::Report::FleetSentences.new(summary)

  def terminal(summary) = StringIO.new.tap { |io| Mallard::Report::FleetTerminal.new(summary).render(io) }.string
end
