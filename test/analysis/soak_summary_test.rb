# frozen_string_literal: true

require "test_helper"
require "json"

# The summary computed from a run model whose records were parsed as a run directory stores them (string keys,
# through Run.record), and from a stored run read back whole.
class SoakSummaryTest < Minitest::Test
  Run = Mallard::Run
  SoakSummary = Mallard::Analysis::SoakSummary

  LEAKY = File.expand_path("../fixtures/runs/soak-leaky", __dir__)

  def test_a_steady_leak_against_counted_requests_is_growing
    verdict = summarize(totals { |i| { "rss_kb" => 50_000 + (400 * i), "requests" => 1000 * i } }).verdict

    assert_equal "growing", verdict.memory
    assert_in_delta 400, verdict.slope_kb_per_1k_requests, 1
    assert_equal "agent", verdict.requests_source
    assert_equal "rss_kb", verdict.metric
  end

  def test_several_processes_are_judged_on_summed_pss
    summary = summarize(totals do |i|
                          { "processes" => 3, "pss_kb" => 90_000, "rss_kb" => 120_000 + (i * 10),
                            "requests" => 500 * i }
                        end)

    assert_equal "pss_kb", summary.verdict.metric
    assert_equal "plateaued", summary.verdict.memory
    assert_equal "pss_kb", summary.memory.metric
    assert_equal 90_000, summary.memory.steady_kb
  end

  # soak --idle: no job ran, which is no failure, and memory is judged over the seconds since the start.
  def test_an_idle_soak_with_no_jobs_is_judged_over_time
    summary = summarize(totals { |i| { "rss_kb" => 60_000 + (i.odd? ? 8 : 0) } }, options: { "idle" => true },
                                                                                  target: "sidekiq")
    verdict = summary.verdict

    assert_equal "complete", summary.status
    assert_equal ["plateaued", "seconds idle", "seconds with no work (--idle)"],
                 verdict.to_h.values_at(:memory, :unit, :requests_source)
    assert_in_delta 0, verdict.slope_kb_per_1k_s, 1000
    assert_nil verdict.slope_kb_per_1k_jobs
  end

  def test_without_agent_counts_requests_are_estimated_from_the_load_rate
    summary = summarize(totals { |_i| { "rss_kb" => 60_000 } }, load: load_result(requests: 2000))

    assert_in_delta 100.0, summary.load.rps
    assert_equal "estimated from the load tool's average rate", summary.verdict.requests_source
  end

  def test_samples_outside_the_load_window_do_not_count
    before = { "kind" => "total", "t" => 0.5, "rss_kb" => 999_999, "pss_kb" => 1, "processes" => 1 }
    summary = summarize([before] + totals { |i| { "rss_kb" => 50_000, "requests" => 100 * i } })

    assert_equal 50_000, summary.memory.steady_rss_kb
    assert_equal 999_999, summary.memory.peak_rss_kb, "the peak is the peak, whenever it happened"
  end

  def test_app_figures_and_flags_from_agent_records
    agent = [{ "kind" => "agent", "t" => 5.0, "pid" => 1, "requests" => 3, "in_app_ms" => [0.2, 0.3, 0.4],
               "body_ms" => [30.0, 31.0, nil], "chunks" => [300, 300, 1], "queue_ms" => [0.1, 0.1, 0.1] }]
    app = summarize(totals { |i| { "rss_kb" => 1, "requests" => i } }, agent: agent,
                                                                       load: load_result(latency_ms: { p50: 40.0 })).app

    assert_in_delta 0.3, app.in_app_ms.p50
    assert_in_delta 30.5, app.body_ms.p50, 1e-9, "an Array body's nil write time is left out"
    assert_equal 300, app.chunks_per_response["p50"]
    assert_equal 2, app.flags.size
    assert_in_delta 30.3, app.outside.server_ms, 1e-9, "the median request's queue + in-app + body"
    assert_in_delta 9.7, app.outside.rest_ms, 1e-9
    assert_match(/after 0\.1 ms waiting for a free server thread: 40\.2 ms is spent where/, app.flags.last)
  end

  # The field report's Rails app: 10 connections, 5 threads, 169 ms in the app and 357 ms from outside, nearly all
  # of it the wait for a thread. Queueing accounts for it: no flag.
  def test_queueing_is_not_flagged_as_time_the_app_cannot_see
    agent = [{ "kind" => "agent", "t" => 5.0, "pid" => 1, "requests" => 3, "in_app_ms" => [168.0, 169.0, 170.0],
               "body_ms" => [nil, nil, nil], "chunks" => [1, 1, 1], "queue_ms" => [185.0, 187.0, 189.0] }]
    load = load_result(latency_ms: { p50: 357.0 })
    app = summarize(totals { |i| { "rss_kb" => 1, "requests" => i } }, agent: agent, load: load).app

    assert_in_delta 356.0, app.outside.server_ms
    assert_empty app.flags
  end

  def test_gc_counts_are_deltas_per_process_summed
    agent = [gc_record(1, 1.0, 10, 5), gc_record(1, 20.0, 30, 105), gc_record(2, 1.0, 0, 0), gc_record(2, 20.0, 4, 10)]
    gc = summarize(totals { |_i| { "rss_kb" => 1 } }, agent: agent).gc

    assert_equal 24, gc.count
    assert_equal 110, gc.time_ms
    assert_in_delta 110 / 38_000.0, gc.share_of_wall, 1e-4
  end

  def test_an_empty_run_still_summarises
    run = Run::SoakRun.new(path: "x", meta: Run::Meta.new, totals: [], processes: [], agent: [], load: nil,
                           skipped: 0)
    summary = SoakSummary.call(run)

    assert_equal "inconclusive", summary.verdict.memory
    assert_nil summary.memory.steady_rss_kb
    assert_nil summary.series.rps, "a series not measured is not zeros"
  end

  # Most requests failed: the run measured the failures, not the app, so it has no verdict to give.
  def test_a_run_over_the_error_limit_is_a_failed_measurement_without_a_verdict
    failing = load_result(requests: 100, errors: { status: 90, connect: 5 })
    summary = summarize(totals { |i| { "rss_kb" => 50_000 + (400 * i), "requests" => 10 * i } }, load: failing)

    assert_equal "failed", summary.status
    assert_equal "errors", summary.cause
    assert_nil summary.verdict
    assert_equal 65, summary.outcome.exit_status
    assert_operator summary.load.error_pct, :>, SoakSummary::DEFAULT_MAX_ERROR_PCT
    assert_includes summary.reason, "(95 of 105"
  end

  # Failed on timeouts: the app was saturated, kept as data beside the failure's reason (SoakSentences words it).
  def test_a_run_failed_on_timeouts_keeps_that_the_app_was_saturated
    failing = load_result(requests: 100, errors: { timeout: 80, status: 5 })
    samples = totals { |i| { "rss_kb" => 50_000, "requests" => 10 * i } }
    summary = summarize(samples, load: failing, options: { "concurrency" => 10 })

    assert_equal %w[failed errors], [summary.status, summary.cause]
    assert_equal [80, 10, 2], summary.saturation.to_h.values_at(:timeouts, :concurrency, :suggest_concurrency)
    assert_match(/a failed measurement, not a result\z/, summary.reason)
    assert_nil summarize(samples, load: load_result(requests: 100, errors: { status: 5 })).saturation
  end

  def test_errors_within_the_limit_the_run_asked_for_keep_the_verdict
    failing = load_result(requests: 100, errors: { status: 5 })
    samples = totals { |i| { "rss_kb" => 50_000, "requests" => 10 * i } }
    summary = summarize(samples, load: failing, options: { max_error_pct: 10.0 })

    assert_equal "complete", summary.status
    refute_nil summary.verdict
  end

  # A stored run read back whole gives the verdict the run itself wrote.
  def test_a_stored_run_recomputes_its_own_verdict
    run = Run::SoakReader.read(Run::Directory.new(LEAKY))
    summary = SoakSummary.call(run)

    assert_equal run.summary.verdict.memory, summary.verdict.memory
    assert_equal run.summary.memory.peak_rss_kb, summary.memory.peak_rss_kb
    assert_equal run.totals.size, summary.memory.samples
    assert_equal "complete", summary.status
    assert_equal run.path, summary.run_dir
  end

  # summary.json holds exactly what the views read live.
  def test_a_summary_reloads_from_its_json_as_the_same_value
    summary = SoakSummary.call(Run::SoakReader.read(Run::Directory.new(LEAKY)))

    assert_equal summary, Mallard::Summary::Soak.from_h(JSON.parse(JSON.generate(summary.to_h)))
  end

  private

  def totals
    Array.new(40) do |i|
      { "kind" => "total", "t" => 1.0 + (i * 0.5), "processes" => 1, "pss_kb" => 0 }.merge(yield(i))
    end
  end

  def gc_record(pid, time, count, time_ms)
    { "kind" => "agent", "t" => time, "pid" => pid, "gc" => { "count" => count, "minor_gc_count" => count,
                                                              "major_gc_count" => 0, "time_ms" => time_ms } }
  end

  def load_result(requests: 800, errors: {}, latency_ms: { p50: 10.0, p99: 40.0 })
    Mallard::Probe::LoadResult.build(tool: "wrk", requests: requests, duration_s: 20.0, errors: errors,
                                     latency_ms: latency_ms)
  end

  def summarize(samples, agent: [], load: nil, options: {}, target: "rack")
    records = (samples + agent).filter_map { |hash| Run.record(hash) }.group_by(&:first)
    of = ->(kind) { records.fetch(kind, []).map(&:last).sort_by(&:t) }
    phases = Run::Phases.new(load_started_t: 1.0, load_finished_t: 21.0, outcome: Run::Outcome.complete)
    meta = Run::Meta.new(target: Run::TargetInfo.new(kind: target), options: options, phases: phases)
    run = Run::SoakRun.new(path: "x", meta: meta, totals: of.call("total"), processes: of.call("memory"),
                           agent: of.call("agent"), load: load, skipped: 0)
    SoakSummary.call(run)
  end
end
