# frozen_string_literal: true

require "test_helper"

# A heap run's ending: its soak's when the three dumps were written (with what to change when the traced app could
# not keep up with the load), a failed measurement when they were not, and a stopped run's own ending otherwise.
class HeapSummaryTest < Minitest::Test
  Dump = Struct.new(:pid, :number)
  Run = Struct.new(:dumps, :failures, :schedule)

  def test_a_load_that_failed_under_tracing_says_what_to_change
    soak = soak_summary("failed", "errors", "31% of requests failed (timeout 212)")
    outcome = Mallard::Analysis::HeapSummary.outcome(soak, dumps(3), heap_run(3))

    assert_equal %w[failed errors], outcome.values_at(:status, :cause)
    assert_match(/\A31% of requests failed \(timeout 212\); allocation tracing slows the app .* fewer connections /,
                 outcome[:reason])
    assert_includes outcome[:reason], "--concurrency, default 2"
  end

  def test_missing_dumps_say_how_many_were_written_and_why
    error = assert_raises(Mallard::FailedMeasurement) do
      Mallard::Analysis::HeapSummary.outcome(soak_summary("complete", nil, nil), dumps(1),
                                             heap_run(1, "gave_up" => "why"))
    end

    assert_equal "1 of the 3 dumps was written (why)", error.message
  end

  private

  def soak_summary(status, cause, reason)
    Mallard::Summary::Soak.from_h(status: status, cause: cause, reason: reason)
  end

  def dumps(count) = (1..count).map { |number| Dump.new(7, number) }

  def heap_run(count, schedule = {}) = Run.new(dumps(count), [], schedule)
end
