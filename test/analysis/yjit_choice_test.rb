# frozen_string_literal: true

require "test_helper"

# compare --yjit's decision, as data (YjitSentencesTest words it): among rows that differ only in YJIT, the smallest
# code region whose req/s is not told apart from the best YJIT row's, or that YJIT does not pay for its memory here.
class YjitChoiceTest < Minitest::Test
  YjitChoice = Mallard::Analysis::YjitChoice
  RunFigures = Mallard::Summary::RunFigures
  Row = Mallard::Summary::Row

  # 16 MiB serves as 64 does, both well above off: 16 it is, though on serves a little more.
  def test_the_smallest_region_not_told_apart_from_the_best
    choice = decide(row("off", [100, 101, 99]), row("16", [150, 152, 149]), row("64", [151, 150, 152]),
                    row("on", [152, 151, 153], region_mib: 48))

    assert_equal ["glibc", "glibc/yjit-off", "glibc/yjit-on", "glibc/yjit-16", nil],
                 [choice.group, choice.off, choice.best, choice.choice, choice.ending]
    assert_equal([["16", 16], ["on", 48], ["64", 64]], choice.options.map { |option| [option.mode, option.size_mib] })
    assert_equal "different", choice.options.first.vs_off.finding
  end

  # 8 MiB is too small for this app's code: its req/s is told below the best, so the next size up is chosen.
  def test_a_region_told_below_the_best_is_passed_over
    choice = decide(row("off", [100, 101, 99]), row("8", [120, 121, 119]), row("32", [150, 151, 149]),
                    row("64", [151, 150, 150]))

    assert_equal "glibc/yjit-32", choice.choice
    assert_equal "different", choice.options.first.vs_best.finding
  end

  def test_yjit_does_not_pay_when_no_row_is_resolved_above_off
    choice = decide(row("off", [100, 101, 99], rss: 50_000), row("on", [101, 99, 100], region_mib: 48, rss: 60_000),
                    row("16", [100, 100, 101], rss: 55_000))

    assert_equal [nil, "no_gain"], [choice.choice, choice.ending]
    assert_equal(%w[different different], choice.options.map { |option| option.memory_vs_off.finding })
  end

  # One run of a row has no interval: nothing is told apart, so nothing is decided.
  def test_a_single_run_decides_nothing
    choice = decide(row("off", [100]), row("16", [150]))

    assert_equal [nil, "no_interval"], [choice.choice, choice.ending]
  end

  # Without yjit-off the best YJIT rows are still told apart by size.
  def test_without_off_the_sizes_are_still_chosen_between
    choice = decide(row("on", [150, 151, 149], region_mib: 48), row("32", [150, 150, 151]))

    assert_equal ["glibc/yjit-32", nil], [choice.choice, choice.off]
    assert_nil choice.options.first.vs_off
  end

  # Rows on different Rubies or configurations are decided apart; rows without --yjit make no choice.
  def test_each_group_of_rows_differing_only_in_yjit_is_decided_apart
    rows = [row("off", [100, 101, 99]), row("16", [150, 152, 149]),
            row("off", [100, 101, 99], group: "3.3/jemalloc"), row("16", [101, 100, 99], group: "3.3/jemalloc"),
            Row.new(name: "tcmalloc", runs: [figures(100)])]
    choices = YjitChoice.call(rows, metric: "steady_rss_kb")

    assert_equal([%w[glibc glibc/yjit-16], ["3.3/jemalloc", nil]], choices.map { |found| [found.group, found.choice] })
    assert_empty YjitChoice.call(rows.last(1), metric: "steady_rss_kb")
  end

  def test_yjit_rows_that_all_failed_are_unmeasured
    choice = decide(row("off", [100, 101]), row("16", [], failed: "YJIT was off in the app, not on"))

    assert_equal ["unmeasured", []], [choice.ending, choice.options]
  end

  private

  def decide(*rows) = YjitChoice.call(rows, metric: "steady_rss_kb").first

  def row(mode, rps, group: "glibc", region_mib: nil, rss: 50_000, failed: nil)
    with_agent = figures(rps.first || 1, rss: rss, region_kb: region_mib && (region_mib * 1024))
    Row.new(name: "#{group}/yjit-#{mode}", yjit: mode, failed: failed,
            runs: rps.each_with_index.map { |rate, i| figures(rate, rss: rss + (i * 100)) },
            instrumented_runs: [with_agent])
  end

  def figures(rps, rss: 50_000, region_kb: nil)
    RunFigures.new(rps: rps.to_f, steady_rss_kb: rss, problems: [], yjit_region_kb: region_kb)
  end
end
