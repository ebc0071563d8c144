# frozen_string_literal: true

require "test_helper"

# A fleet's summary and its terminal view, from stored series (no Prometheus): B's processes ~20% below A's.
class FleetSummaryTest < Minitest::Test
  Run = Mallard::Run
  MIB = 1024.0 * 1024

  def run_of(a_levels, b_levels)
    options = { "prometheus" => "http://prom:9090", "metric" => "pss", "series" => "ruby_process_pss_bytes",
                "since_s" => 60.0, "step_s" => 1.0, "start" => 0.0, "end" => 60.0 }
    Run::FleetRun.new(path: "/runs/fleet", meta: Run::Meta.new(options: options),
                      a: side("A", '{job="glibc"}', a_levels), b: side("B", '{job="arena2"}', b_levels))
  end

  def side(name, selector, levels)
    series = levels.each_with_index.map do |level, index|
      Run::FleetSeries.new(labels: { "instance" => "host#{index}:9394", "pid" => index.to_s },
                           points: Array.new(60) { |t| [t.to_f, (level + (t.odd? ? 0.1 : -0.1)) * MIB] })
    end
    Run::FleetSide.new(name: name, selector: selector, query: "ruby_process_pss_bytes#{selector}", series: series)
  end

  def test_b_lower_with_an_interval_and_the_gate
    summary = Mallard::Analysis::FleetSummary.call(run_of([100, 102, 98, 101, 99], [80, 81, 79, 82]),
                                                   fail_over: 5)

    assert_equal "different", summary.change.finding
    assert_in_delta(-20.0, summary.change.pct, 1.5)
    assert_operator summary.change.ci[1], :<, -1
    assert_equal [5, 4], [summary.a.processes, summary.b.processes]
    refute summary.fail_over.failed
    assert_equal summary, Mallard::Summary::Fleet.from_h(JSON.parse(JSON.generate(summary.to_h)))
  end

  def test_b_higher_fails_the_gate_as_diff_does
    summary = Mallard::Analysis::FleetSummary.call(run_of([80, 81, 79, 82], [100, 102, 98, 101, 99]), fail_over: 5)

    gate = summary.fail_over
    assert gate.failed
    assert_equal [summary.change.pct, summary.change.ci, 5, nil], [gate.pct, gate.ci, gate.threshold_pct, gate.reason]
    assert_operator gate.ci.first, :>, 5
  end

  def test_terminal_prints_compares_table_and_the_method
    summary = Mallard::Analysis::FleetSummary.call(run_of([100, 102, 98, 101, 99], [80, 81, 79, 82]))
    io = StringIO.new
    Mallard::Report::FleetTerminal.new(summary).render(io)
    lines = io.string.lines(chomp: true)

    assert_equal "mallard fleet — http://prom:9090", lines[0]
    assert_match(/^  set  selector +processes  median +range +vs A$/, io.string)
    assert_match(/^  A    \{job="glibc"\} +5 +100\.0 MiB +98\.0 MiB … 102\.0 MiB +—$/, io.string)
    assert_match(/^  B    \{job="arena2"\} +4 +80\.5 MiB +79\.0 MiB … 82\.0 MiB +-19\.\d% \(-\d+\.\d … -\d+\.\d\)$/,
                 io.string)
    assert_includes io.string, "Interval: Hodges–Lehmann shift of log per-process medians, Mann–Whitney 95% interval"
    assert_match(/; a difference only beyond ±1%\.$/, io.string)
  end

  def test_the_band_a_difference_must_clear_is_the_summarys
    computed = Mallard::Analysis::FleetSummary.call(run_of([100, 102, 98, 101, 99], [80, 81, 79, 82]))
    summary = computed.with(change: computed.change.with(noise_pct: 2.5))
    io = StringIO.new
    Mallard::Report::FleetTerminal.new(summary).render(io)

    assert_match(/; a difference only beyond ±2\.5%\.$/, io.string)
  end

  def test_too_few_processes_is_no_verdict_and_says_what_would_do
    summary = Mallard::Analysis::FleetSummary.call(run_of([100, 102], [80, 81, 79]), fail_over: 0)
    io = StringIO.new
    Mallard::Report::FleetTerminal.new(summary).render(io)

    assert_nil summary.change.ci
    assert_equal "no_interval", summary.change.finding
    refute summary.fail_over.failed, "no interval never fails"
    assert_includes io.string, "No verdict: too few processes to decide (2 in A, 3 in B); a 95% interval needs at " \
                               "least 1 against 39, 2 against 8, 3 against 5, 4 and 4."
  end
end
