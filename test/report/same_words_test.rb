# frozen_string_literal: true

require "test_helper"
require "cgi"
require_relative "stored_summaries"

# One home for wording (Report::Words): a change reads the same in the comparison's terminal table, its HTML table,
# its recommendation and a diff; a job worker's p99 is named the same in every view that shows it.
class SameWordsTest < Minitest::Test
  include ComparisonRows
  include StoredSummaries

  Words = Mallard::Report::Words

  def test_a_change_reads_the_same_in_terminal_html_diff_and_the_recommendation
    summary = compared(row("jemalloc", rss: 80_000))
    versus = summary.configs.last.vs_baseline
    change = Words.change(versus.rss_pct, versus.rss_pct_ci)
    sentences = Mallard::Report::CompareSentences.new(summary).recommendation

    assert_match(/\A-20\.\d% \(-\d+\.\d … -\d+\.\d\)\z/, change)
    assert_includes terminal(summary), change
    assert_includes html(summary), change
    assert_includes sentences.reason, "steady RSS #{change}"
    assert_includes diff_terminal(versus.rss_pct, versus.rss_pct_ci), change
  end

  def test_a_job_workers_p99_is_named_the_same_everywhere
    summary = compared(row("tcmalloc", rss: 70_000, p99: 60.0), row("jemalloc", rss: 80_000), jobs: true)
    name = Words.figures("jobs")[:latency]
    words = Mallard::Report::CompareSentences.new(summary).recommendation

    assert_equal "p99 queue wait", name
    assert_includes terminal(summary), "#{name} ms"
    assert_includes html(summary), "#{name} ms"
    assert_includes words.rejections.to_h.fetch("tcmalloc"), "#{name} +50.0%"
    assert_includes diff_terminal(4.0, [1.0, 7.0], metric: "p99_ms", unit: "jobs"), "mallard diff — #{name}, B"
    assert_includes soak_terminal(jobs_soak), "#{name} 12.5 ms"
  end

  private

  def compared(*rows, jobs: false)
    target = Mallard::Run::TargetInfo.new(kind: jobs ? "sidekiq" : "rack", description: "an app")
    Mallard::Analysis::CompareSummary.call(rows: [row("glibc", rss: 100_000), *rows],
                                           outcome: Mallard::Run::Outcome.complete, run_dir: "/runs/x", target: target)
  end

  def terminal(summary) = printed { |io| Mallard::Report::CompareTerminal.new(summary).render(io) }

  def html(summary)
    page = printed { |io| Mallard::Report::Html.new(summary, meta: stored_meta("compare")).render(io) }
    CGI.unescapeHTML(page.gsub(/<[^>]*>/, " ")).split.join(" ")
  end

  def diff_terminal(pct, interval, metric: "steady_rss_kb", unit: "requests")
    row = { "name" => metric, "a" => 1.0, "b" => 1.0, "pct" => pct, "ci" => interval, "finding" => "different" }
    diff = Mallard::Summary::Diff.from_h("kind" => "soak", "metric" => metric, "unit" => unit, "direction" => 1,
                                         "methodology" => "Welch's t", "rows" => [row])
    printed { |io| Mallard::Report::DiffTerminal.new(diff).render(io) }
  end

  def jobs_soak
    soak_summary("soak-leaky", target: { "kind" => "sidekiq", "description" => "a worker" },
                               jobs: { "processed" => 100, "failed" => 0, "failed_pct" => 0.0, "per_s" => 10.0,
                                       "queue_latency_ms" => { "p50" => 2.0, "p99" => 12.5 } })
  end

  def soak_terminal(summary) = printed { |io| Mallard::Report::SoakTerminal.new(summary).render(io) }

  def printed(&)
    StringIO.new.tap(&).string
  end
end
