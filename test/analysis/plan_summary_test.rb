# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "cgi"

# A stored plan (test/fixtures/runs/plan-rails: a Rails app measured as 2x5 twice, checked at 8x5) read as `mallard
# report` reads it: the summary holds together, the endings a plan can have, and its views say the same.
class PlanSummaryTest < Minitest::Test
  include CliRuns

  RUN = File.expand_path("../fixtures/runs/plan-rails", __dir__)
  Run = Mallard::Run

  def stored_run = Run::PlanReader.read(Run::Directory.new(RUN))

  def summary(plan = stored_run) = Mallard::Analysis::PlanSummary.call(plan)

  def test_the_reader_finds_the_measuring_soaks_in_order_and_the_check
    assert_equal %w[measure-1 measure-2 check], stored_run.soaks.keys
    assert_equal 2, stored_run.measuring.size
    assert_equal %w[2x5 8x5], stored_run.meta.configs
  end

  def test_the_prediction_is_made_of_its_parts
    plan = summary
    parts = plan.parts

    assert_equal "complete", plan.status
    assert_equal [8, 5, 160.0], [plan.plan.workers, plan.plan.threads, plan.plan.rate]
    assert_equal parts.shared_kb + parts.master_kb + (8 * parts.worker_kb), plan.plan.predicted_peak_kb
    assert_equal (1..10).to_a, plan.predictions.map(&:workers)
  end

  def test_the_prediction_is_set_against_the_checks_peak
    choice = summary.plan
    check = summary.runs.last

    assert_equal ["check", "8x5", 8], [check.role, check.shape, check.worker_peaks_kb.size]
    assert_equal check.peak_pss_kb, choice.measured_peak_kb
    assert_in_delta (choice.predicted_peak_kb - check.peak_pss_kb) * 100.0 / check.peak_pss_kb, choice.error_pct, 0.01
    assert choice.within_limit
  end

  def test_the_measuring_runs_add_up_at_their_peak
    summary.runs.first(2).each do |measured|
      assert_equal 2, measured.worker_peaks_kb.size
      assert_operator measured.master_kb + measured.shared_kb + measured.worker_peaks_kb.sum, :>=, measured.peak_pss_kb
    end
  end

  def test_a_limit_not_one_worker_fits_under_is_a_failed_plan
    stored = stored_run
    options = stored.meta.options.merge("memory_limit" => "100M")
    failed = summary(Run::PlanRun.new(**stored.to_h, meta: stored.meta.with(options: options)))

    assert_equal %w[failed no_fit], [failed.status, failed.cause]
    assert_equal 65, failed.outcome.exit_status
    assert_equal 0, failed.plan.workers
    assert_nil failed.shape
    assert_match(/Not one worker fits under 100.0 MiB/, Mallard::Report::PlanSentences.new(failed).choice)
  end

  def test_a_plan_stopped_before_its_check_did_not_finish
    stored = stored_run
    meta = stored.meta.with(phases: Run::Phases.new(outcome: Run::Outcome.running))
    stopped = summary(Run::PlanRun.new(**stored.to_h, meta: meta, soaks: stored.soaks.except("check")))

    assert_equal "running", stopped.status
    assert_nil stopped.plan.measured_peak_kb
  end

  def test_report_shows_it_in_the_terminal_as_json_and_as_html_with_the_same_sentences
    status, out, err = run_cli("report", RUN)
    assert_equal 0, status, err
    sentences = Mallard::Report::PlanSentences.new(summary)
    [sentences.choice, sentences.check, "WEB_CONCURRENCY=8", "workers 8"].each { |text| assert_includes out, text }

    _, json, = run_cli("report", "--json", RUN)
    assert_equal 8, JSON.parse(json).dig("plan", "workers")
    assert_equal summary.plan.measured_peak_kb, JSON.parse(json).dig("plan", "measured_peak_kb")

    page = html_page
    [sentences.choice, sentences.check, sentences.parts].each { |text| assert_includes page, text }
  end

  private

  def html_page
    Dir.mktmpdir do |dir|
      html = File.join(dir, "plan.html")
      assert_equal 0, run_cli("report", "--html", html, RUN).first
      CGI.unescapeHTML(File.read(html))
    end
  end
end
