# frozen_string_literal: true

require "test_helper"
require_relative "../support/comparison_rows"

# compare --yjit's words (YjitChoiceTest decides): each YJIT row's code and metadata beside its memory and speed, and
# the code region chosen in each group of rows, or why none was.
class YjitSentencesTest < Minitest::Test
  include ComparisonRows

  def test_the_smallest_region_that_serves_as_the_best_is_named_with_its_changes
    words = sentences(yjit("off", rps: 100.0, rss: 50_000), yjit("16", rps: 151.0, rss: 54_000),
                      yjit("on", rps: 152.0, rss: 56_000))

    assert_equal ["glibc: YJIT with a 16 MiB code region (glibc/yjit-16): the smallest code region whose req/s is " \
                  "not told apart from the best YJIT row's, glibc/yjit-on's (against it: req/s -0.7% (-2.9 … +1.6, " \
                  "not told apart)); against glibc/yjit-off: req/s +51.0% (+47.6 … +54.5) and steady RSS +8.0% " \
                  "(+5.6 … +10.5)"], words.decisions
  end

  def test_yjit_that_gains_nothing_does_not_pay_for_its_memory
    words = sentences(yjit("off", rps: 100.0, rss: 50_000), yjit("on", rps: 100.5, rss: 60_000))

    decision, snippet = words.decided.first

    assert_match(/\Aglibc: YJIT does not pay for its memory here: no YJIT row's req.s was told above glibc.yjit-off's /,
                 decision)
    assert_match(%r{\(glibc/yjit-on: req/s \+0\.5% \(\S+ … \S+, not told apart\) and steady RSS \+20\.0% \(.*\)\)\z},
                 decision)
    assert_nil snippet
  end

  def test_the_only_yjit_row_is_the_best_and_nothing_smaller_is_claimed
    words = sentences(yjit("off", rps: 100.0, rss: 50_000), yjit("16", rps: 151.0, rss: 54_000))

    assert_match(%r{\Aglibc: YJIT with a 16 MiB code region \(glibc/yjit-16\): the best YJIT row's req/s; against },
                 words.decisions.first)
    assert_includes words.decided.first.last, "RUBY_YJIT_ENABLE=1\nRUBYOPT=--yjit-exec-mem-size=16\n"
  end

  def test_the_table_shows_yjits_memory_beside_the_rows_figures
    header, rows = sentences(yjit("off", rps: 100.0, rss: 50_000), yjit("16", rps: 151.0, rss: 54_000)).table

    assert_equal ["configuration", "YJIT", "YJIT code", "YJIT metadata", "steady memory", "req/s", "p99 latency ms"],
                 header
    assert_equal [["glibc/yjit-off", "off", "—", "—", "48.8 MiB", "100", "40.0"],
                  ["glibc/yjit-16", "on, 16 MiB", "0.5 MiB", "1.5 MiB", "52.7 MiB", "151", "40.0"]], rows
  end

  def test_a_comparison_without_yjit_rows_says_nothing_of_it
    words = sentences(row("glibc", rss: 50_000))

    refute words.any?
    assert_empty words.all
  end

  private

  def sentences(*rows)
    summary = Mallard::Analysis::CompareSummary.call(rows: rows, outcome: Mallard::Run::Outcome.complete,
                                                     run_dir: "/runs/x", target: nil)
    Mallard::Report::CompareSentences.new(summary).yjit
  end

  # A YJIT row whose run with the agent read YJIT's memory (none under off).
  def yjit(mode, rps:, rss:)
    memory = mode == "off" ? {} : { yjit_code_kb: 512, yjit_metadata_kb: 1536, yjit_region_kb: 48 * 1024 }
    with_agent = Mallard::Summary::RunFigures.new(steady_rss_kb: rss, rps: rps, problems: [], **memory)
    row("glibc/yjit-#{mode}", rss: rss, rps: rps, yjit: mode, instrumented_runs: [with_agent])
  end
end
