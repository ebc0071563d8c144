# frozen_string_literal: true

require "test_helper"

# The words of a diff's --fail-over (DiffSentences), from the gate's data: the metric by its name for the run's unit
# of work, the change as Words gives it, the row where the kind can fail on several, and how many more failed.
class DiffSentencesTest < Minitest::Test
  def test_a_soaks_gate_names_the_metric_and_its_change
    diff = diff("soak", "steady_rss_kb", { "row" => "steady_rss_kb", "pct" => 20.0, "ci" => [15.2, 25.1] })

    assert_equal "steady RSS +20.0% (+15.2 … +25.1): worse than the 5% --fail-over allows, with 95% confidence",
                 sentences(diff).fail_over
  end

  def test_a_comparisons_gate_names_the_configuration_and_how_many_more_failed
    diff = diff("compare", "rps", { "row" => "glibc", "pct" => -20.0, "ci" => [-22.1, -17.9], "more" => 2 })

    assert_equal "glibc: req/s -20.0% (-22.1 … -17.9): worse than the 5% --fail-over allows, with 95% confidence " \
                 "(and 2 more configurations)", sentences(diff).fail_over
  end

  def test_a_job_workers_latency_is_its_queue_wait
    diff = diff("soak", "p99_ms", { "row" => "p99_ms", "pct" => 40.0, "ci" => [30.0, 50.0] }, unit: "jobs")

    assert_match(/\Ap99 queue wait \+40\.0% \(\+30\.0 … \+50\.0\): /, sentences(diff).fail_over)
  end

  def test_a_boots_gate_on_its_total_names_no_row
    diff = diff("boot", "boot_rss_kb", { "row" => "total", "pct" => 9.5, "ci" => [8.0, 11.0], "more" => 0 })

    assert_match(/\ARSS after boot \+9\.5% \(\+8\.0 … \+11\.0\): worse than the 5% --fail-over allows/,
                 sentences(diff).fail_over)
  end

  def test_a_passed_gate_has_no_reason
    assert_nil sentences(diff("soak", "steady_rss_kb", { "failed" => false })).fail_over
  end

  private

  def diff(kind, metric, gate, unit: "requests")
    Mallard::Summary::Diff.from_h("kind" => kind, "metric" => metric, "unit" => unit, "rows" => [],
                                  "fail_over" => { "threshold_pct" => 5, "failed" => true }.merge(gate))
  end

  def sentences(diff) = Mallard::Report::DiffSentences.new(diff)
end
