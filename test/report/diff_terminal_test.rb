# frozen_string_literal: true

require "test_helper"

# The diff view: each row's change and interval, and what it means by its finding.
class DiffTerminalTest < Minitest::Test
  ROW = { "a" => 125_112, "b" => 131_000, "pct" => 4.7, "ci" => [2.1, 7.4], "significant" => true,
          "finding" => "different", "worse" => true, "batches" => [4, 4] }.freeze

  def test_each_row_says_what_its_change_means
    text = render(rows: [ROW.merge("name" => "rose"),
                         ROW.merge("name" => "fell", "pct" => -4.7, "ci" => [-7.4, -2.1], "worse" => false),
                         ROW.merge("name" => "small", "pct" => 0.5, "ci" => [0.2, 0.8], "significant" => false,
                                   "finding" => "within_noise"),
                         ROW.merge("name" => "flat", "pct" => 0.1, "ci" => [-3.0, 3.1], "significant" => false,
                                   "finding" => "no_difference"),
                         ROW.merge("name" => "single", "ci" => nil, "significant" => false, "finding" => "no_interval",
                                   "note" => "no interval: fewer than 6 steady-state samples in A")])

    assert_match(/^  rose\s+122\.2 MiB\s+127\.9 MiB\s+\+4\.7% \(\+2\.1 … \+7\.4\)\s+significant: worse$/, text)
    assert_match(/^  fell .*significant: better$/, text)
    assert_match(/^  small .*not clear of ±1% noise$/, text)
    assert_match(/^  flat .*no detectable difference$/, text)
    assert_match(/^  single .*\+4\.7%\s+no interval: fewer than 6 steady-state samples in A$/, text)
    assert_includes text, "Welch's t on the logs of each run's steady-window batch means (A 4, B 4 batches)"
  end

  def test_the_fail_over_gate
    failed = render(rows: [ROW.merge("name" => "steady_rss_kb")],
                    fail_over: { "threshold_pct" => 2, "failed" => true, "row" => "steady_rss_kb", "pct" => 4.7,
                                 "ci" => [2.1, 7.4], "more" => 0 })
    passed = render(rows: [ROW.merge("name" => "steady_rss_kb")],
                    fail_over: { "threshold_pct" => 5, "failed" => false })

    assert_includes failed, "failed --fail-over: steady RSS +4.7% (+2.1 … +7.4): worse than the 2% --fail-over " \
                            "allows, with 95% confidence"
    assert_includes passed, "passed --fail-over: no significant change worse than 5%"
  end

  private

  def render(rows:, **extra)
    diff = Mallard::Summary::Diff.from_h(
      "kind" => "soak", "metric" => "steady_rss_kb", "rows" => rows,
      "methodology" => "Welch's t on the logs of each run's steady-window batch means",
      "a" => { "run_dir" => "/runs/a", "target" => "app", "status" => "complete" },
      "b" => { "run_dir" => "/runs/b", "target" => "app", "status" => "complete" }, **extra.transform_keys(&:to_s)
    )
    StringIO.new.tap { |io| Mallard::Report::DiffTerminal.new(diff).render(io) }.string
  end
end
