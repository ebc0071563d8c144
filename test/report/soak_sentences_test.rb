# frozen_string_literal: true

require "test_helper"

# A soak's sentences worded from what the analysis decided, beyond those with presenters of their own
# (VerdictSentences, LedgerSentences, GcSentences): how a failed run ended, and that the app was saturated.
class SoakSentencesTest < Minitest::Test
  REASON = "8.4% of requests failed (73 of 868; the limit is 1%, --max-errors): a failed measurement, not a result"

  # The Rails app of issue 39: 10 connections, 8.2 req/s served, 73 of 868 attempts timed out.
  def test_a_load_failed_on_timeouts_says_the_app_was_saturated_and_what_to_run_instead
    saturation = Mallard::Summary::Saturation.new(timeouts: 73, timeout_s: 5, served_rps: 8.2, concurrency: 10,
                                                  suggest_concurrency: 4, suggest_rate: 6.1)

    assert_equal "#{REASON}; 73 of them timed out (no answer within 5 s): the app was saturated, answering 8.2 req/s " \
                 "here to 10 connections; try `--concurrency 4` or `--rate 6.1`, or `--concurrency auto` to find the " \
                 "load it serves", words(saturation).reason
  end

  def test_an_open_loop_is_offered_a_rate_only
    saturation = Mallard::Summary::Saturation.new(timeouts: 50, timeout_s: 5, served_rps: 3.0, suggest_rate: 2.3)

    assert_match(/answering 3\.0 req.s here; try `--rate 2\.3`, or `--concurrency auto`/, words(saturation).saturation)
  end

  def test_a_failure_without_saturation_is_its_reason_and_a_complete_run_has_none
    assert_equal REASON, words(nil).reason
    assert_nil Mallard::Report::SoakSentences.new(Mallard::Summary::Soak.new(status: "complete")).reason
  end

  # A soak keeps the agent (its purpose is the explanation) and says so; a run without it (no ledger) says nothing.
  def test_a_soak_with_the_agent_says_its_figures_carry_it
    with = Mallard::Summary::Soak.new(status: "complete", ledger: Mallard::Summary::Ledger.new)

    assert_match(/\Amallard's agent ran inside the app for this explanation/,
                 Mallard::Report::SoakSentences.new(with).instrumented)
    assert_nil Mallard::Report::SoakSentences.new(Mallard::Summary::Soak.new(status: "complete")).instrumented
  end

  # An idle soak (soak --idle): memory over time is the backend's own, and one that levels off is not a leak.
  def test_an_idle_soak_says_its_memory_is_the_backends_own
    said = %w[growing plateaued inconclusive].to_h do |memory|
      verdict = Mallard::Summary::Verdict.new(memory: memory, unit: "seconds idle", finding: "bounded",
                                              requests_source: Mallard::Analysis::RequestAxis::IDLE)
      [memory, Mallard::Report::SoakSentences.new(Mallard::Summary::Soak.new(verdict: verdict)).conclusion]
    end

    assert_match(/\AWith no jobs \(--idle\), memory grew over time: that growth is the backend's own/, said["growing"])
    assert_match(/levelled off: the backend does not grow on its own, so growth under load is your jobs'/,
                 said["plateaued"])
    assert_match(/not decided over this run: idle longer/, said["inconclusive"])
    said.each_value { |sentence| refute_match(/\bleak\b/, sentence) }
  end

  def test_a_run_with_work_says_nothing_of_idling
    verdict = Mallard::Summary::Verdict.new(memory: "plateaued", finding: "bounded", requests_source: "agent")

    assert_nil Mallard::Report::SoakSentences.new(Mallard::Summary::Soak.new(verdict: verdict)).idle
  end

  private

  def words(saturation)
    summary = Mallard::Summary::Soak.new(status: "failed", cause: "errors", reason: REASON, saturation: saturation)
    Mallard::Report::SoakSentences.new(summary)
  end
end
