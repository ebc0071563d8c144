# frozen_string_literal: true

require "test_helper"
require "json"

class CompareSummaryTest < Minitest::Test
  Summary = Mallard::Summary
  Outcome = Mallard::Run::Outcome
  CompareSummary = Mallard::Analysis::CompareSummary

  FIXTURE = File.expand_path("../fixtures/runs/compare/summary.json", __dir__)
  TARGET = Mallard::Run::TargetInfo.new(kind: "rack", description: "hello")

  def figures(rss)
    Summary::RunFigures.new(steady_rss_kb: rss, steady_pss_kb: rss / 2, peak_rss_kb: rss, processes: 1, rps: 500.0,
                            p50_ms: 10.0, p99_ms: 40.0, errors: 0, verdict: "plateaued", problems: [])
  end

  def row(name, *rss)
    Summary::Row.new(name: name, allocator: name, available: true, verified: rss.any?, failed: nil,
                     runs: rss.map { |kb| figures(kb) }, invalid_runs: [])
  end

  def summarize(rows, outcome: Outcome.complete)
    CompareSummary.call(rows: rows, outcome: outcome, run_dir: "/runs/x", target: TARGET)
  end

  # --repeat 1: a change for every configuration, and no interval to call it by.
  def test_one_run_each_has_a_change_but_no_interval
    summary = summarize([row("glibc", 100_000), row("jemalloc", 80_000)])
    jemalloc = summary.configs.last

    assert_equal "no interval: one run each", jemalloc.vs_baseline.note
    assert_in_delta(-20, jemalloc.vs_baseline.rss_pct, 1e-9)
    assert_nil jemalloc.vs_baseline.rss_pct_ci
    assert_equal "no_interval", jemalloc.vs_baseline.rss_finding
    assert_nil summary.recommendation.name, "nothing is recommended without an interval"
  end

  def test_the_summary_says_what_it_compared_and_how_it_ended
    summary = summarize([row("glibc", 100_000, 101_000, 99_000), row("jemalloc", 80_000, 81_000, 79_000)])

    assert_equal "compare", summary.kind
    assert_equal "complete", summary.status
    assert_equal 0, summary.outcome.exit_status
    assert_equal %w[glibc steady_rss_kb], [summary.baseline, summary.metric]
    assert_equal %w[glibc jemalloc], summary.configs.map(&:name)
    assert_equal %w[plateaued] * 3, summary.configs.last.verdicts
    assert_equal "jemalloc", summary.recommendation.name
    assert_equal TARGET, summary.target
    assert_equal Mallard::Run::Directory::SCHEMA_VERSION, summary.schema_version
  end

  def test_no_valid_run_at_all_is_a_failed_measurement_without_a_recommendation
    summary = summarize([row("glibc"), row("jemalloc")])

    assert_equal %w[failed no_valid_runs], [summary.status, summary.cause]
    assert_equal 65, summary.outcome.exit_status
    assert_nil summary.recommendation
  end

  def test_an_interrupted_comparison_keeps_its_outcome_and_its_figures
    stopped = Outcome.interrupted("signal", "mallard received SIGINT")
    summary = summarize([row("glibc", 100_000), row("jemalloc")], outcome: stopped)

    assert_equal stopped, summary.outcome
    assert_equal 1, summary.configs.first.repeats
    refute_nil summary.recommendation
  end

  # The figures and the recommendation depend on the rows alone: recomputed from a stored comparison's rows they
  # are the ones it stored.
  def test_a_stored_comparison_recomputed_from_its_rows_is_unchanged
    stored = Summary::Compare.from_h(JSON.parse(File.read(FIXTURE)))
    # Rows of schema 1 predate invalid_runs.
    rows = stored.rows.map { |stored_row| stored_row.dup.tap { |copy| copy.invalid_runs ||= [] } }
    summary = summarize(rows)

    assert_equal stored.configs.map(&:steady_rss_kb), summary.configs.map(&:steady_rss_kb)
    assert_equal(stored.configs.map { |config| config.vs_baseline&.rss_pct_ci },
                 summary.configs.map { |config| config.vs_baseline&.rss_pct_ci })
    assert_same_decision stored, summary.recommendation
  end

  # A summary stored before the decision was data keeps its sentence: the decision made again says the same.
  def assert_same_decision(stored, decided)
    assert_equal [stored.recommendation.name, stored.recommendation.rejected.map(&:name)],
                 [decided.name, decided.rejected.map(&:name)]
    # The stored sentence's saving, "−29% steady-state RSS (95% CI −38 … −18)", is the decision's, rounded.
    saving = [decided.saving.pct, *decided.saving.ci].map { |figure| figure.abs.round.to_s }
    assert_equal saving, stored.recommendation.reason[/: (.*?\))/, 1].sub("95% CI", "").scan(/\d+/)
  end

  def test_a_summary_reloads_from_its_json_as_the_same_value
    summary = summarize([row("glibc", 100_000, 101_000), row("jemalloc", 80_000, 81_000)])

    assert_equal summary, Summary::Compare.from_h(JSON.parse(JSON.generate(summary.to_h)))
  end
end
