# frozen_string_literal: true

require "test_helper"

# A heap run's ending, as data: its soak's when the three dumps were written (and whether that soak's load failed
# with tracing on), and how many dumps were written and why no more when there were not three. HeapSentencesTest
# words the same cases.
class HeapSummaryTest < Minitest::Test
  Dump = Struct.new(:pid, :number)
  Run = Struct.new(:dumps, :failures, :schedule)

  def test_a_load_that_failed_under_tracing_is_said_so_beside_the_soaks_reason
    soak = soak_summary("failed", "errors", "31% of requests failed (timeout 212)")
    outcome = Mallard::Analysis::HeapSummary.outcome(soak)

    assert_equal ["failed", "errors", "31% of requests failed (timeout 212)", true],
                 outcome.values_at(:status, :cause, :reason, :traced_load_failed)
    refute Mallard::Analysis::HeapSummary.outcome(soak_summary("complete", nil, nil))[:traced_load_failed]
  end

  def test_missing_dumps_are_how_many_were_written_and_why
    shortfall = Mallard::Analysis::HeapSummary.shortfall(dumps(1), heap_run(1, "gave_up" => "why"))

    assert_equal [1, "why"], [shortfall.written, shortfall.why]
    assert_equal [2, "dump 3 failed"],
                 Mallard::Analysis::HeapSummary.shortfall(dumps(2), Run.new(dumps(2), ["dump 3 failed"], {}))
                                               .to_h.values_at(:written, :why)
  end

  def test_without_dumps_a_stopped_run_ends_as_its_soak_did_and_any_other_is_a_failed_measurement
    failed = Mallard::Analysis::HeapSummary.failed(soak_summary("complete", nil, nil))
    stopped = Mallard::Analysis::HeapSummary.failed(soak_summary("interrupted", "signal", "interrupted by SIGINT"),
                                                    "dump B holds no allocation info")

    assert_equal({ status: "failed", cause: "no_dumps", reason: nil }, failed)
    assert_equal({ status: "interrupted", cause: "signal",
                   reason: "interrupted by SIGINT; dump B holds no allocation info" }, stopped)
  end

  private

  def soak_summary(status, cause, reason)
    Mallard::Summary::Soak.from_h(status: status, cause: cause, reason: reason)
  end

  def dumps(count) = (1..count).map { |number| Dump.new(7, number) }

  def heap_run(count, schedule = {}) = Run.new(dumps(count), [], schedule)
end
