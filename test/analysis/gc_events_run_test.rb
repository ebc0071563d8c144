# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# A stored run whose agent.jsonl carries "gc" lines, as the agent's GC event hook writes them: read by the soak
# reader and summarised from the events (the stored summary.json is left out, so it is computed).
class GcEventsRunTest < Minitest::Test
  LEAKY = File.expand_path("../fixtures/runs/soak-leaky", __dir__)
  PID = 27_030

  def setup
    @dir = Dir.mktmpdir("mallard-gc-events")
    %w[agent.jsonl load.json meta.json samples.jsonl].each { |name| FileUtils.cp(File.join(LEAKY, name), @dir) }
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_a_run_with_gc_events_is_judged_on_the_live_set_after_each_major_gc
    append_gc_lines
    summary = Mallard::Analysis::SoakSummary.call(Mallard::RunKind.open(@dir).run)
    gc = summary.gc

    assert_equal "the agent's GC events", gc.source
    assert_equal [60, 48, 12], [gc.runs, gc.minor, gc.major]
    assert_in_delta 0.4, gc.pause_ms.p50, 0.01
    assert_equal Mallard::Analysis::LiveSet::AFTER_MAJOR, summary.live_set.measure
    assert_equal "growing", summary.verdict.live_set
    assert_equal "rising", gc.major_time_vs_live_set.finding
    assert_equal 60, summary.series.gc_pause_ms.size
  end

  private

  # Every 0.08 s from t = 1.0 a GC, each fifth major; the live set after a major grows 20,000 slots a second and
  # its pause with it. One line per 0.4 s, carrying the GCs since the previous line.
  def append_gc_lines
    events = Array.new(60) do |i|
      t = (1.0 + (0.08 * i)).round(3)
      major = (i % 5 == 4)
      live = 60_000 + (20_000 * t).round
      [t, major ? 2.0 + (live / 20_000.0) : 0.4, major ? 1.0 : 0.4, major ? 1 : 0, major ? "oldgen" : nil,
       "newobj", live, live - 10_000, 200, 0, 0]
    end
    File.open(File.join(@dir, "agent.jsonl"), "a") do |file|
      events.each_slice(5) do |slice|
        t = slice.last.first + 0.01
        file.puts JSON.generate(kind: "gc", t: t, pid: PID, requests: (t * 3000).round, dropped: 0, events: slice)
      end
    end
  end
end
