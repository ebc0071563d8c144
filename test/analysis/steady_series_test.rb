# frozen_string_literal: true

require "test_helper"

class SteadySeriesTest < Minitest::Test
  SteadySeries = Mallard::Analysis::SteadySeries

  def total(time, rss)
    { "kind" => "total", "t" => time, "rss_kb" => rss, "pss_kb" => rss / 2 }
  end

  def samples
    [total(0.5, 1), { "kind" => "memory", "t" => 1.0, "rss_kb" => 999 }, total(1.0, 10), total(1.5, 11),
     total(2.0, 12), total(2.5, 13), total(3.0, 14), total(3.5, 99)]
  end

  def test_takes_the_load_window_after_the_summarys_warm_up
    phases = { "load_started_t" => 1.0, "load_finished_t" => 3.0 }
    summary = { "verdict" => { "warmup_samples" => 2 } }

    assert_equal [12, 13, 14], SteadySeries.call(summary: summary, samples: samples, phases: phases, key: "rss_kb")
    assert_equal [6, 6, 7], SteadySeries.call(summary: summary, samples: samples, phases: phases, key: "pss_kb")
  end

  # A run killed mid-load has no end time: its window runs to the last sample, as in its summary.
  def test_a_run_without_an_end_time_runs_to_the_last_sample
    phases = { "load_started_t" => 1.0 }
    summary = { "verdict" => { "warmup_samples" => 0 } }

    assert_equal [10, 11, 12, 13, 14, 99],
                 SteadySeries.call(summary: summary, samples: samples.reverse, phases: phases, key: "rss_kb")
  end

  def test_without_a_verdict_the_warm_up_is_detected
    flat = Array.new(20) { |i| total(i.to_f, 100) }

    assert_equal [100] * 20, SteadySeries.call(summary: {}, samples: flat, phases: {}, key: "rss_kb")
  end
end
