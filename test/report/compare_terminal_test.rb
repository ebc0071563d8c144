# frozen_string_literal: true

require "test_helper"
require_relative "stored_summaries"

# The comparison view, rendered from a stored summary of a real run on the demo app.
class CompareTerminalTest < Minitest::Test
  include StoredSummaries

  def test_one_table_row_per_configuration_with_changes_against_the_baseline
    text = render

    header = %r{^  configuration\s+steady memory\s+vs baseline\s+peak\s+req/s.*memory verdicts\s+live-set verdicts$}
    assert_match(header, text)
    assert_match(/^  glibc\s+95\.2 MiB \(76\.2 … 113\.6\)\s+—/, text)
    assert_match(/^  glibc-arena2\s+64\.9 MiB .*-31\.0% \(-41\.5 … -18\.6\)/, text)
    assert_match(/^  jemalloc\s+93\.5 MiB .*no detectable difference/, text)
    refute_match(/\bMB\b/, text)
  end

  def test_a_change_told_from_zero_but_inside_the_noise_band_says_so
    text = render(jemalloc: { "rss_pct" => -0.5, "rss_pct_ci" => [-0.8, -0.2], "rss_finding" => "within_noise" })

    assert_match(/^  jemalloc\s+93\.5 MiB .*not clear of ±1% noise/, text)
  end

  # --repeat 1 once printed "no detectable difference" for -17.8%: a change without an interval is no finding.
  def test_a_change_without_an_interval_shows_the_change_and_why
    text = render(jemalloc: { "rss_pct" => -17.8, "rss_pct_ci" => nil, "rss_finding" => "no_interval",
                              "note" => "no interval: one run each" })
    cells = text[/^  jemalloc .*$/].strip.split(/\s{2,}/)

    assert_equal "-17.8% (no interval: one run each)", cells[2]
  end

  # A summary written before findings were stored says whether a change was significant, not what else its
  # interval showed: the interval is shown as it is.
  def test_a_stored_summary_without_findings_shows_a_non_significant_interval_as_it_is
    text = render_summary(compare_summary("compare_summary.json"))

    assert_match(/^  glibc-arena2\s+64\.9 MiB .*-31\.0% \(-41\.5 … -18\.6\)/, text)
    assert_match(/^  jemalloc\s+93\.5 MiB \([^)]*\)\s+not significant \(-17\.6 … \+21\.2\)/, text)
  end

  def test_memory_and_live_set_verdicts_and_runs_not_counted
    summary = compare_summary("compare_summary.json") do |hash|
      findings(hash)
      hash["configs"][1].merge!("verdicts" => %w[plateaued plateaued growing], "invalid_runs" => 1,
                                "live_set_verdicts" => %w[plateaued plateaued plateaued])
      hash["rows"][1]["invalid_runs"] = [{ "problems" => ["load did not reach every worker"] }]
    end
    text = render_summary(summary)

    assert_match(/^  glibc-arena2 .*plateaued ×2, growing ×1\s+plateaued ×3$/, text)
    assert_includes text, "  glibc-arena2: 1 run not counted: load did not reach every worker\n"
    refute_match(/ +$/, text)
  end

  def test_recommendation_with_deploy_snippets
    text = render

    assert_match(/Recommendation: glibc-arena2/, text)
    assert_match(/Environment=MALLOC_ARENA_MAX=2/, text)
    assert_match(/mallard doctor PID/, text)
  end

  def test_a_failed_comparison_has_no_recommendation_but_its_reason
    summary = compare_summary("compare_summary.json") do |hash|
      hash.merge!("status" => "failed", "cause" => "no_valid_runs", "recommendation" => nil,
                  "reason" => "no configuration has a valid run: nothing was measured")
    end
    text = render_summary(summary)

    assert_includes text, "  failed measurement: no configuration has a valid run: nothing was measured, " \
                          "no recommendation\n"
    assert_match(/^No recommendation\n  no configuration has a valid run/, text)
    refute_includes text, "Recommendation:"
  end

  def test_an_interrupted_comparison_says_so
    summary = compare_summary("compare_summary.json") do |hash|
      hash.merge!("status" => "interrupted", "cause" => "signal", "reason" => "mallard received SIGINT")
    end

    assert_includes render_summary(summary), "\n  interrupted: mallard received SIGINT\n"
  end

  def test_rows_that_were_not_measured_say_why
    summary = compare_summary("compare_summary.json") do |hash|
      hash["configs"] << { "name" => "tcmalloc", "repeats" => 0, "available" => false,
                           "unavailable_reason" => "libtcmalloc_minimal.so.4 not found; install libtcmalloc-minimal4" }
      hash["configs"] << { "name" => "mimalloc", "repeats" => 0, "available" => true, "failed" => "`puma` exited" }
    end
    text = render_summary(summary)

    assert_match(/tcmalloc\s+unavailable: libtcmalloc_minimal\.so\.4 not found; install libtcmalloc-minimal4/, text)
    assert_match(/mimalloc\s+failed: `puma` exited/, text)
  end

  # The app's path and the subject's command are the user's and the subject's text: one line each, inert.
  def test_text_from_outside_is_printed_on_one_line_without_control_characters
    summary = compare_summary("compare_summary.json") do |hash|
      hash["target"]["description"] = "/srv/new\nline \\xFF (Puma, 5 threads, 0 workers)"
      hash["run_dir"] = "/runs/\e[2Jcleared"
      hash["configs"] << { "name" => "mimalloc", "repeats" => 0, "failed" => "`ruby -e \e]0;title\a` exited" }
    end
    text = render_summary(summary)

    assert_equal "mallard compare — /srv/new\\x0Aline \\xFF (Puma, 5 threads, 0 workers)\n", text.lines.first
    assert_match(/mimalloc\s+failed: `ruby -e ` exited$/, text)
    assert_includes text, "Run directory: /runs/cleared"
    refute_match(/[\x00-\x08\x0B-\x1F\x7F]/, text)
  end

  def test_no_trailing_spaces
    refute_match(/ +$/, render)
  end

  # Each configuration's ledger beside its saving: which part shrank.
  def test_the_ledger_of_each_configuration_is_shown_beside_its_saving
    summary = compare_summary("compare_summary.json") do |hash|
      findings(hash)
      hash["configs"][0]["ledger_kb"] = { "ruby live objects" => 10_240, "malloc in use" => 40_960,
                                          "malloc held free" => 40_960, "unexplained" => 5120 }
      hash["configs"][1]["ledger_kb"] = { "ruby live objects" => 10_240, "malloc in use" => 40_960,
                                          "malloc held free" => 10_240, "unexplained" => 5120 }
    end
    text = render_summary(summary)

    assert_includes text, "  Where the memory is (memory ledger, MiB, median of repeats):\n"
    assert_match(/^  glibc         ruby live 10\.0 · malloc 40\.0 · malloc free 40\.0 · unexplained 5\.0$/, text)
    assert_match(/^  glibc-arena2  ruby live 10\.0 · malloc 40\.0 · malloc free 10\.0 · unexplained 5\.0  /, text)
    assert_match(/^  glibc-arena2  .*\(steady memory -31\.0%\)$/, text)
    refute_includes render, "Where the memory is", "no ledger, no section"
  end

  private

  # The stored comparison as a current summary reads, its findings given (every non-significant interval here
  # spans zero), with changes to a configuration's vs_baseline.
  def render(**changes)
    summary = compare_summary("compare_summary.json") do |hash|
      findings(hash)
      changes.each do |name, vs|
        hash["configs"].find { |config| config["name"] == name.to_s }["vs_baseline"].merge!(vs)
      end
    end
    render_summary(summary)
  end

  def findings(hash)
    hash["configs"].filter_map { |config| config["vs_baseline"] }.each do |vs|
      vs["rss_finding"] = vs["significant"] ? "different" : "no_difference"
      vs["rps_finding"] = vs["rps_significant"] ? "different" : "no_difference"
    end
  end

  def render_summary(summary)
    StringIO.new.tap { |io| Mallard::Report::CompareTerminal.new(summary).render(io) }.string
  end
end
