# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "tmpdir"
require_relative "stored_summaries"

# Every view formats one summary: the terminal, JSON and HTML of a run show the same ending, verdict and figures,
# whether the run wrote summary.json or was killed before it could and is summarised from its raw files.
class SameFiguresTest < Minitest::Test
  include StoredSummaries

  def test_an_interrupted_run_reads_the_same_in_every_view
    assert_same_figures soak_summary("soak-interrupted", series: soak_series), stored_meta("soak-interrupted")
  end

  def test_a_killed_run_summarised_from_its_raw_files_reads_the_same_in_every_view
    Dir.mktmpdir do |tmp|
      FileUtils.cp_r(File.join(RUNS, "soak-interrupted"), tmp)
      dir = File.join(tmp, "soak-interrupted")
      File.delete(File.join(dir, "summary.json"))
      run = Mallard::RunKind.open(dir).run
      summary = Mallard::Analysis::SoakSummary.for(run)

      assert_nil run.summary
      refute_nil summary.verdict
      assert_same_figures summary, run.meta
    end
  end

  private

  def assert_same_figures(summary, meta)
    json = JSON.parse(printed { |io| Mallard::Report::Json.new(summary).render(io) })
    terminal = printed { |io| Mallard::Report::SoakTerminal.new(summary).render(io) }
    html = printed { |io| Mallard::Report::Html.new(summary, meta: meta).render(io) }

    assert_equal Mallard::Summary::Soak.from_h(json), summary
    [terminal, html].each { |text| assert_shows(text, summary) }
  end

  def assert_shows(text, summary)
    assert_includes text, summary.status
    assert_includes text, summary.reason if summary.reason
    assert_includes text, summary.verdict.memory
    assert_includes text, format("%+.1f KiB", summary.verdict.slope_kb_per_1k_requests)
    assert_includes text, format("%.1f MiB", summary.memory.steady_rss_kb / 1024.0)
  end

  def printed(&)
    StringIO.new.tap(&).string
  end
end
