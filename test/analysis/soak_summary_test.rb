# frozen_string_literal: true

require "test_helper"

# The summary computed from raw records as a run directory stores them (string keys).
class SoakSummaryTest < Minitest::Test
  PHASES = { "status" => "complete", "load_started_t" => 1.0, "load_finished_t" => 21.0 }.freeze

  def test_a_steady_leak_against_counted_requests_is_growing
    summary = summarize(totals { |i| { "rss_kb" => 50_000 + (400 * i), "requests" => 1000 * i } })

    assert_equal "growing", summary.dig(:verdict, :memory)
    assert_in_delta 400, summary.dig(:verdict, :slope_kb_per_1k_requests), 1
    assert_equal "agent", summary.dig(:verdict, :requests_source)
    assert_equal "rss_kb", summary.dig(:verdict, :metric)
  end

  def test_several_processes_are_judged_on_summed_pss
    summary = summarize(totals do |i|
                          { "processes" => 3, "pss_kb" => 90_000, "rss_kb" => 120_000 + (i * 10),
                            "requests" => 500 * i }
                        end)

    assert_equal "pss_kb", summary.dig(:verdict, :metric)
    assert_equal "plateaued", summary.dig(:verdict, :memory)
  end

  def test_without_agent_counts_requests_are_estimated_from_the_load_rate
    summary = summarize(totals { |_i| { "rss_kb" => 60_000 } }, load: { "rps" => 100.0, "requests" => 2000 })

    assert_equal "estimated from the load tool's average rate", summary.dig(:verdict, :requests_source)
  end

  def test_samples_outside_the_load_window_do_not_count
    before = { "kind" => "total", "t" => 0.5, "rss_kb" => 999_999, "pss_kb" => 1, "processes" => 1 }
    summary = summarize([before] + totals { |i| { "rss_kb" => 50_000, "requests" => 100 * i } })

    assert_equal 50_000, summary.dig(:memory, :steady_rss_kb)
    assert_equal 999_999, summary.dig(:memory, :peak_rss_kb), "the peak is the peak, whenever it happened"
  end

  def test_app_figures_and_flags_from_agent_records
    agent = [{ "kind" => "agent", "t" => 5.0, "pid" => 1, "requests" => 3,
               "in_app_ms" => [0.2, 0.3, 0.4], "body_ms" => [30.0, 31.0, nil], "chunks" => [300, 300, 1] }]
    load = { "latency_ms" => { "p50" => 40.0 } }
    app = summarize(totals { |i| { "rss_kb" => 1, "requests" => i } }, agent: agent, load: load)[:app]

    assert_equal 0.3, app.dig(:in_app_ms, :p50)
    assert_equal 30.5, app.dig(:body_ms, :p50), "an Array body's nil write time is left out"
    assert_equal 300, app.dig(:chunks_per_response, :p50)
    assert_equal 2, app[:flags].size
  end

  def test_gc_counts_are_deltas_per_process_summed
    agent = [gc_record(1, 1.0, 10, 5), gc_record(1, 20.0, 30, 105), gc_record(2, 1.0, 0, 0), gc_record(2, 20.0, 4, 10)]
    gc = summarize(totals { |_i| { "rss_kb" => 1 } }, agent: agent)[:gc]

    assert_equal 24, gc[:count]
    assert_equal 110, gc[:time_ms]
    assert_in_delta 110 / 38_000.0, gc[:share_of_wall], 1e-4
  end

  def test_an_empty_run_still_summarises
    summary = Mallard::Analysis::SoakSummary.new(meta: {}, samples: [], agent: [], load: nil, run_dir: "x").to_h

    assert_equal "inconclusive", summary.dig(:verdict, :memory)
    assert_nil summary.dig(:memory, :steady_rss_kb)
  end

  private

  def totals
    Array.new(40) do |i|
      { "kind" => "total", "t" => 1.0 + (i * 0.5), "processes" => 1, "pss_kb" => 0 }.merge(yield(i))
    end
  end

  def gc_record(pid, time, count, time_ms)
    { "kind" => "agent", "t" => time, "pid" => pid, "gc" => { "count" => count, "minor_gc_count" => count,
                                                              "major_gc_count" => 0, "time_ms" => time_ms } }
  end

  def summarize(samples, agent: [], load: nil)
    meta = { "target" => { "kind" => "rack" }, "phases" => PHASES }
    Mallard::Analysis::SoakSummary.new(meta: meta, samples: samples, agent: agent, load: load, run_dir: "x").to_h
  end
end
