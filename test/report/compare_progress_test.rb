# frozen_string_literal: true

require "test_helper"
require_relative "stored_summaries"

# A comparison's per-run lines, as the protocol's events arrive.
class CompareProgressTest < Minitest::Test
  include StoredSummaries

  def test_a_run_line_shows_the_figure_the_table_is_made_of
    # Three processes: the run's metric is summed PSS (schema 1 kept it in the verdict only).
    memory = stored("soak-workers/summary.json")["memory"].merge("metric" => "pss_kb")
    workers = soak_summary("soak-workers", memory: memory)
    lines = events do |progress|
      progress.run_started(label: "glibc", repeat: 1, position: 1, total: 2)
      progress.run_finished(label: "glibc", summary: soak_summary("soak-leaky"))
      progress.run_started(label: "glibc", repeat: 2, position: 2, total: 2)
      progress.run_finished(label: "glibc", summary: workers)
    end

    assert_equal "[1/2] glibc           #1  steady RSS 122.2 MiB · peak 188.6 MiB · 3342 req/s · growing", lines[0]
    assert_equal "[2/2] glibc           #2  steady PSS 34.7 MiB · peak 69.1 MiB · 6686 req/s · inconclusive", lines[1]
  end

  def test_each_line_carries_the_position_it_was_given_and_only_once
    lines = events do |progress|
      progress.run_started(label: "jemalloc", repeat: 1, position: 1, total: 3)
      progress.run_failed(label: "jemalloc", reason: "`puma` exited")
      progress.run_failed(label: "tcmalloc", reason: "libtcmalloc_minimal.so.4 not found")
      progress.run_started(label: "glibc", repeat: 1, position: 2, total: 3)
      progress.run_invalid(label: "glibc", problems: ["load did not reach every worker", "the machine was busy"])
      progress.run_started(label: "glibc", repeat: 1, position: 3, total: 3)
      progress.run_finished(label: "glibc", summary: soak_summary("soak-leaky"))
    end

    assert_equal ["[1/3] jemalloc        #1  failed: `puma` exited",
                  "tcmalloc  failed: libtcmalloc_minimal.so.4 not found",
                  "[2/3] glibc           #1  not counted: load did not reach every worker; the machine was busy"],
                 lines.first(3)
    assert_match(%r{\A\[3/3\] glibc           #1  steady RSS}, lines[3])
  end

  # --until-resolved adds a round: the first three intervals still too wide, worded by the comparison's presenter.
  def test_an_added_round_names_what_is_not_resolved_yet
    too_wide = %w[a b c d].map { |name| Mallard::Summary::Unresolved.new(name: name, figure: "memory", half_width: 4) }
    summary = Mallard::Summary::Compare.new(resolution: Mallard::Summary::Resolution.new(pct: 2.0, too_wide: too_wide))
    lines = events { |progress| progress.round_added(round: 4, summary: summary) }

    assert_equal ["mallard: adding round 4: not resolved yet: a memory: ±4.0 points; b memory: ±4.0 points; " \
                  "c memory: ±4.0 points; 1 more"], lines
  end

  def test_the_silent_reporter_takes_every_event
    silent = Mallard::Report::SilentProgress.new

    assert_nil silent.run_invalid(label: "glibc", problems: [])
    assert_nil silent.finished(soak_summary("soak-leaky"))
  end

  private

  def events
    io = StringIO.new
    yield Mallard::Report::CompareProgress.new(io)
    io.string.lines.map(&:chomp)
  end
end
