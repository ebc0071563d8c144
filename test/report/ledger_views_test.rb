# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The memory ledger's views: the terminal's stacked line per process and trend, the HTML stacked area chart.
# Both format the Summary::Ledger the analysis built from a hand-made run.
class LedgerViewsTest < Minitest::Test
  include GcRuns
  MIB = 1024 * 1024

  def setup
    run = gc_run
    run.ledger = Array.new(30) do |i|
      t = i + 1.0
      Mallard::Run::LedgerRecord.new(t: t, pid: 7, requests: (t * 100).round, rss_kb: 100_000 + (1024 * i),
                                     file_kb: 30_000, ruby_live_kb: 10_000, ruby_pages_kb: 11_000,
                                     malloc_in_use_kb: 20_000, allocator: "glibc",
                                     malloc: { "mallinfo2.fordblks" => (i + 11) * MIB }, threads: 6, cost_ms: 0.4)
    end
    result = Mallard::Analysis::Ledger.call(run)
    @ledger = result.ledger
    @sentence = Mallard::Report::LedgerSentences.new(@ledger, headroom_kb: result.headroom_kb).sentence
  end

  def test_terminal_stacks_each_process_and_says_each_parts_trend
    lines = Mallard::Report::LedgerLines.new(@ledger, color: Mallard::Report::Color::Plain.new, sentence: @sentence)
                                        .lines

    assert_match(/\Anot a leak: /, lines[0])
    assert_equal "pid 7: RSS 126.7 = ruby live 9.8 + ruby free 1.0 + malloc 19.5 + malloc free 40.0 (+29) + " \
                 "file 29.3 + unexplained 27.1", lines[1]
    assert_match(/malloc free growing \+\d+/, lines[2])
    assert_match(/30 readings every ~1.0 s · 78.6% of RSS explained · a reading costs 0.4 ms/, lines[3])
  end

  def test_html_draws_one_band_per_part_read_and_leaves_unread_ones_out
    svg = Mallard::Report::Html::LedgerChart.new(@ledger, sentence: @sentence).to_html.to_s

    assert_equal 6, svg.scan("<polygon").size # no YJIT
    assert_includes svg, "<p class=\"note\">not a leak: "
    refute_includes svg, "YJIT"
    assert_includes svg, "126.7 MiB"
    assert_equal "", Mallard::Report::Html::LedgerChart.new(nil).to_html
  end
end
