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

  private

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
