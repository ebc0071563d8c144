# frozen_string_literal: true

require "test_helper"
require_relative "stored_summaries"

# The soak view, rendered from stored summaries of real runs and from the endings a run can have.
class SoakTerminalTest < Minitest::Test
  include StoredSummaries

  def test_the_verdict_memory_and_load_in_binary_units
    text = render(soak_summary("soak-leaky"))

    assert_includes text, "\n  Memory   growing · slope +10035.5 KiB per 1,000 requests (95% CI +8592.4 … +11478.6, " \
                          "tolerance 1.2 MiB)\n"
    assert_includes text, "steady RSS 122.2 MiB · PSS 115.7 MiB · peak 188.6 MiB"
    assert_includes text, "\n  Load     wrk · 16906 requests · 3342.1 req/s · p50 1.8 ms · p99 137.5 ms · 0 errors\n"
    refute_match(/\bMB\b/, text)
  end

  # A job worker's verdict is per 1,000 jobs, and how many more would decide it is grouped by thousands.
  def test_a_job_workers_inconclusive_verdict_counts_jobs
    verdict = stored("soak-leaky/summary.json")["verdict"]
              .merge("memory" => "inconclusive", "slope_kb_per_1k_requests" => nil, "slope_kb_per_1k_jobs" => 54.6,
                     "unit" => "jobs", "requests_needed" => 28_938)
    text = render(soak_summary("soak-leaky", verdict: verdict))

    assert_match(/inconclusive · slope \+54\.6 KiB per 1,000 jobs/, text)
    assert_includes text, "run longer: about 28,938 jobs after warm-up would decide it"
  end

  def test_the_sparkline_is_drawn_from_the_rss_series
    text = render(soak_summary("soak-workers", series: soak_series))

    assert_match(/^ {11}▁[▁-█]{8}█  RSS over 6 s, warm-up 2\.49 s$/, text) # ten points, rising
  end

  def test_an_empty_run_has_no_series_and_no_sparkline
    text = render(soak_summary("soak-leaky", series: nil))

    refute_includes text, "RSS over"
  end

  def test_gcs_the_per_gc_timeline_lost_are_said_under_the_runs
    gc = stored("soak-leaky/summary.json")["gc"]
    text = render(soak_summary("soak-leaky", gc: gc.merge("dropped" => 5)))

    assert_match(/^ +! 5 GCs lost by the per-GC timeline/, text)
    refute_includes render(soak_summary("soak-leaky", gc: gc.merge("dropped" => 0))), "lost by"
  end

  def test_errors_are_counted_with_their_share_of_the_requests
    load = stored("soak-leaky/summary.json")["load"].merge("errors" => 12, "attempts" => 16_918, "error_pct" => 0.07)

    assert_match(/· 12 errors \(0\.1% of requests\)$/, render(soak_summary("soak-leaky", load: load)))
  end

  def test_a_failed_measurement_says_so_first_and_has_no_verdict
    reason = "45.0% of requests failed (900 of 2000; the limit is 1%, --max-errors): a failed measurement, not a result"
    load = stored("soak-leaky/summary.json")["load"].merge("errors" => 900, "attempts" => 2000, "error_pct" => 45.0)
    text = render(soak_summary("soak-leaky", status: "failed", cause: "errors", reason: reason, verdict: nil,
                                             load: load))

    assert_equal "  failed measurement: #{reason}, no verdict\n", text.lines[1]
    refute_match(/growing|plateaued|inconclusive/, text)
    assert_includes text, "900 errors (45.0% of requests)"
  end

  def test_an_interrupted_run_says_why_and_keeps_its_verdict
    text = render(soak_summary("soak-interrupted"))

    assert_equal "  interrupted: mallard received SIGTERM\n", text.lines[1]
    assert_match(/^  Memory   growing/, text)
  end

  def test_a_run_that_never_said_it_ended_says_so
    assert_includes render(soak_summary("soak-leaky", status: "running")),
                    "  did not finish: the run never said it ended (mallard was killed, or it is still running)\n"
  end

  def test_a_run_that_is_no_valid_measurement_says_why
    problem = "the machine was busy with other work: 1.20 cores on average outside mallard and its subject " \
              "while load ran (limit 0.50)"
    text = render(soak_summary("soak-leaky", validity: { "problems" => [problem] }))

    assert_equal "  not a valid measurement: #{problem}\n", text.lines[1]
  end

  def test_damaged_lines_are_counted
    assert_match(/^           3 damaged sample lines skipped$/, render(soak_summary("soak-leaky", skipped_lines: 3)))
    assert_match(/^           1 damaged sample line skipped$/, render(soak_summary("soak-leaky", skipped_lines: 1)))
    refute_includes render(soak_summary("soak-leaky", skipped_lines: 0)), "damaged"
  end

  def test_no_trailing_spaces
    refute_match(/ +$/, render(soak_summary("soak-workers", series: soak_series, skipped_lines: 2)))
  end

  private

  def render(summary)
    StringIO.new.tap { |io| Mallard::Report::SoakTerminal.new(summary).render(io) }.string
  end
end
