# frozen_string_literal: true

require "test_helper"

# The planner's model, on made-up readings: the parts of a tree, the prediction for N workers with its margin, and the
# largest N that fits.
class PlanTest < Minitest::Test
  Plan = Mallard::Analysis::Plan
  Run = Mallard::Run

  # Two measuring runs of 2 workers: master 30 MiB + shared 40 MiB, workers 38 to 42 MiB.
  def parts
    Plan.parts([plan_run(30_720, 40_960, [38_912, 40_960]), plan_run(30_720, 40_960, [40_960, 43_008])])
  end

  def plan_run(master, shared, workers)
    Mallard::Summary::PlanRun.new(role: "measure", status: "complete", master_kb: master, shared_kb: shared,
                                  worker_peaks_kb: workers, peak_pss_kb: master.to_i + shared + workers.sum)
  end

  def test_the_parts_are_means_with_the_workers_spread
    assert_equal [30_720, 40_960, 40_960, 38_912, 43_008, 4, 0],
                 parts.to_h.values_at(:master_kb, :shared_kb, :worker_kb, :worker_min_kb, :worker_max_kb,
                                      :workers_seen, :fixed_spread_kb)
  end

  def test_a_prediction_is_the_fixed_part_and_n_workers_with_the_largest_worker_as_margin
    prediction = Plan.predict(parts, 4, 400 * 1024)

    assert_equal 30_720 + 40_960 + (4 * 40_960), prediction.predicted_peak_kb
    assert_equal 4 * (43_008 - 40_960), prediction.margin_kb
    assert prediction.fits
  end

  def test_the_choice_is_the_largest_count_whose_prediction_and_margin_fit
    limit = 30_720 + 40_960 + (7 * 43_008) # exactly 7 workers at the largest size

    assert_equal 7, Plan.choose(parts, limit)
    assert_equal 6, Plan.choose(parts, limit - 1)
    assert Plan.predict(parts, 7, limit).fits
    refute Plan.predict(parts, 8, limit).fits
    assert_equal (1..9).to_a, Plan.predictions(parts, limit, 7).map(&:workers)
  end

  def test_not_one_worker_fitting_is_zero_and_a_huge_limit_stops_at_pumas_most
    assert_equal 0, Plan.choose(parts, 30_720 + 40_960 + 43_007)
    assert_equal Mallard::Target::RackApp::MAX_WORKERS, Plan.choose(parts, 1024**3)
  end

  def test_the_runs_fixed_part_spread_adds_to_the_margin
    spread = Plan.parts([plan_run(30_720, 40_960, [40_960]), plan_run(32_768, 40_960, [40_960])])

    assert_equal 1024, spread.fixed_spread_kb
    assert_equal 1024, Plan.predict(spread, 3, 1024**2).margin_kb
  end

  def test_runs_without_a_master_or_workers_give_no_parts
    assert_nil Plan.parts([plan_run(nil, 40_960, [40_960]), plan_run(30_720, 40_960, [])])
  end

  def test_error_is_the_prediction_against_the_measured_peak_in_percent
    assert_in_delta 5.0, Plan.error_pct(105_000, 100_000)
    assert_in_delta(-2.0, Plan.error_pct(98_000, 100_000))
    assert_nil Plan.error_pct(nil, 100_000)
  end

  # A master (pid 1) and two workers over three ticks of load: the peak tick is the second; the workers' own peaks
  # fall on different ticks.
  def test_a_soaks_memory_is_read_at_its_peak_tick_with_each_workers_own_peak
    memory = Plan.memory(soak_run)

    assert_equal 200, memory[:peak_pss_kb]
    assert_equal 20, memory[:master_kb]
    assert_equal 200 - 140, memory[:shared_kb]
    assert_equal [60, 70], memory[:worker_peaks_kb]
  end

  def soak_run
    ticks = { 1.0 => [[1, 20, 30], [2, 50, 60], [3, 40, 50]], 2.0 => [[1, 20, 40], [2, 60, 80], [3, 60, 80]],
              3.0 => [[1, 25, 35], [2, 55, 70], [3, 70, 80]], 9.0 => [[1, 90, 99], [2, 90, 99], [3, 90, 99]] }
    processes = ticks.flat_map do |t, readings|
      readings.map do |pid, uss, pss|
        Run::ProcessSample.new(t: t, pid: pid, role: pid == 1 ? "main" : "child", uss_kb: uss, pss_kb: pss)
      end
    end
    totals = ticks.map do |t, readings|
      Run::TotalSample.new(t: t, uss_kb: readings.sum { |r| r[1] }, pss_kb: readings.sum { |r| r[2] })
    end
    phases = Run::Phases.new(load_started_t: 0.5, load_finished_t: 3.5)
    Run::SoakRun.new(path: "/runs/soak", meta: Run::Meta.new(phases: phases), totals: totals, processes: processes)
  end
end
