# frozen_string_literal: true

require "test_helper"

class SteadyWindowTest < Minitest::Test
  Run = Mallard::Run
  SteadyWindow = Mallard::Analysis::SteadyWindow

  def total(time, rss, processes: 1)
    Run::TotalSample.new(t: time, rss_kb: rss, pss_kb: rss / 2, processes: processes)
  end

  # One tick before load, five while it ran, one after.
  def samples
    [total(0.5, 1), total(1.0, 10), total(1.5, 11), total(2.0, 12), total(2.5, 13), total(3.0, 14), total(3.5, 99)]
  end

  def soak_run(totals, **phases)
    meta = Run::Meta.new(target: Run::TargetInfo.new(kind: "rack"), phases: Run::Phases.new(**phases))
    Run::SoakRun.new(path: "x", meta: meta, totals: totals, processes: [], agent: [], skipped: 0)
  end

  def test_takes_the_load_window_after_the_summarys_warm_up
    window = SteadyWindow.call(soak_run(samples, load_started_t: 1.0, load_finished_t: 3.0), warmup_samples: 2)

    assert_equal [12, 13, 14], window.values(:rss_kb)
    assert_equal [6, 6, 7], window.values(:pss_kb)
    assert_equal 2, window.warmup_samples
    assert_in_delta 1.0, window.warmup_end_s(1.0)
  end

  # A run killed mid-load has no end time: its window runs to the last sample, as in its summary.
  def test_a_run_without_an_end_time_runs_to_the_last_sample
    window = SteadyWindow.call(soak_run(samples, load_started_t: 1.0), warmup_samples: 0)

    assert_equal [10, 11, 12, 13, 14, 99], window.values(:rss_kb)
  end

  def test_without_a_warm_up_given_it_is_detected
    flat = Array.new(20) { |i| total(i.to_f, 100) }
    window = SteadyWindow.call(soak_run(flat))

    assert_equal [100] * 20, window.values
    assert_equal 0, window.warmup_samples
  end

  def test_the_metric_is_rss_for_one_process_and_summed_pss_for_several
    assert_equal :rss_kb, SteadyWindow.call(soak_run(samples), warmup_samples: 0).metric

    workers = soak_run(samples.map { |sample| total(sample.t, sample.rss_kb, processes: 3) })
    window = SteadyWindow.call(workers, warmup_samples: 0)
    assert_equal :pss_kb, window.metric
    assert_equal samples.map { |sample| sample.rss_kb / 2 }, window.values
  end

  def test_nothing_steady_has_no_warm_up_end
    window = SteadyWindow.call(soak_run([], load_started_t: 1.0), warmup_samples: 0)

    assert_empty window.samples
    assert_nil window.warmup_end_s(1.0)
  end
end
