# frozen_string_literal: true

require "test_helper"

class SoakSeriesTest < Minitest::Test
  Run = Mallard::Run
  SoakSeries = Mallard::Analysis::SoakSeries

  # Two processes, each counting its own requests cumulatively: 100 and 50 a second, one record a second.
  def agent_records
    [1, 2].flat_map do |pid|
      rate = pid == 1 ? 100 : 50
      Array.new(6) do |i|
        Run::AgentRecord.new(t: 0.5 + i + (pid * 0.1), pid: pid, requests: rate * (i + 1),
                             gc: { "minor_gc_count" => 2 * i, "major_gc_count" => 0, "heap_live_slots" => 1000 * pid })
      end
    end.sort_by(&:t)
  end

  # The sampler's copy of the count lags the agent's and stalls: differencing it would draw a drop to 0 req/s.
  def totals
    [0, 150, 150, 300, 450, 450].each_with_index.map do |requests, i|
      Run::TotalSample.new(t: 0.5 + i, rss_kb: 1000 + i, pss_kb: 500 + i, processes: 2, requests: requests)
    end
  end

  def soak_run(agent: agent_records, processes: [], load: nil)
    phases = Run::Phases.new(load_started_t: 0.5, load_finished_t: 6.5)
    meta = Run::Meta.new(target: Run::TargetInfo.new(kind: "rack"), options: { interval: 0.5 }, phases: phases)
    Run::SoakRun.new(path: "x", meta: meta, totals: totals, processes: processes, agent: agent, skipped: 0,
                     load: load)
  end

  def test_the_rate_is_each_processs_rise_summed_per_bin
    series = SoakSeries.call(soak_run)

    assert_in_delta 1.0, series.bin_s
    assert_equal [150.0] * 5, series.rps.map(&:last), series.rps.inspect
    # the bin of first records measured nothing and is left out; each point is stamped at its last record
    assert_in_delta 1.7, series.rps.first.first
    assert_equal series.rps.map(&:first).sort, series.rps.map(&:first)
  end

  # 100 requests a second to the end, read every 0.25 s: the last 1 s bin holds only 5.0, 5.25 and 5.5, three
  # quarters of a second since the record before it, the first only 0.25 to 0.75. Divided by the bin's width they
  # read 75 and 50 req/s: drops that never happened.
  def test_the_last_bin_cut_short_by_the_end_of_the_run_keeps_the_rate
    assert_a_steady_hundred_per_second served_until(22), points: 6, last_t: 5.5
  end

  # Load that ends a quarter of a second into a bin: that sliver joins the bin before it rather than standing as a
  # rate over 0.25 s.
  def test_a_sliver_of_a_last_bin_joins_the_one_before
    assert_a_steady_hundred_per_second served_until(20), points: 5, last_t: 5.0
  end

  # The subject is read on while it is being stopped; its counters stand still then, and that is the load having
  # ended, not a fall in the rate.
  def test_rates_end_with_the_load
    stopping = (23..30).map { |k| Run::AgentRecord.new(t: (k * 0.25) + 1.0, pid: 1, requests: 550, gc: nil) }
    assert_a_steady_hundred_per_second served_until(22) + stopping, points: 6, last_t: 5.5
  end

  # wrk sent for its 5 s from the start of load (0.5 s) and then took a second to report and exit, which is when
  # the load was marked finished (6.5 s): its own duration ends the rates.
  def test_the_load_tools_own_duration_ends_the_rates
    idle = (23..26).map { |k| Run::AgentRecord.new(t: k * 0.25, pid: 1, requests: 550, gc: nil) }
    records = served_until(22) + idle
    series = SoakSeries.call(soak_run(agent: records, load: Mallard::Probe::LoadResult.new(duration_s: 5.0)))

    assert_equal [100.0] * 6, series.rps.map(&:last), series.rps.inspect
  end

  # One process serving 100 requests a second, read every 0.25 s up to record `last`.
  def served_until(last)
    (1..last).map { |k| Run::AgentRecord.new(t: k * 0.25, pid: 1, requests: 25 * k, gc: nil) }
  end

  def assert_a_steady_hundred_per_second(records, points:, last_t:)
    series = SoakSeries.call(soak_run(agent: records))

    assert_equal [100.0] * points, series.rps.map(&:last), series.rps.inspect
    assert_in_delta last_t, series.rps.last.first
  end

  def test_gc_rates_and_live_slots_come_from_the_same_records
    series = SoakSeries.call(soak_run)

    assert_equal [4.0] * 5, series.gc_minor_per_s.map(&:last)
    assert_equal [0.0] * 5, series.gc_major_per_s.map(&:last)
    assert_equal 3000, series.live_slots.last.last, "summed over both processes"
  end

  def test_a_series_not_measured_is_nil_not_zeros
    series = SoakSeries.call(soak_run(agent: []))

    assert_nil series.rps
    assert_nil series.gc_minor_per_s
    assert_nil series.gc_major_per_s
    assert_nil series.live_slots
    assert_equal totals.map { |sample| [sample.t, sample.rss_kb] }, series.rss_kb, "memory was measured"
  end

  def test_gc_without_gc_records_is_nil_while_requests_are_counted
    agent = agent_records.map { |record| record.dup.tap { |copy| copy.gc = nil } }
    series = SoakSeries.call(soak_run(agent: agent))

    refute_nil series.rps
    assert_nil series.gc_minor_per_s
    assert_nil series.live_slots
  end

  def test_per_process_pss_only_with_several_processes
    samples = [10, 11].flat_map do |pid|
      Array.new(3) { |i| Run::ProcessSample.new(t: 0.5 + i, pid: pid, role: pid == 10 ? "main" : "child", pss_kb: i) }
    end
    series = SoakSeries.call(soak_run(processes: samples))

    assert_equal [10, 11], series.processes.map(&:pid)
    assert_equal %w[main child], series.processes.map(&:role)
    assert_equal [[0.5, 0], [1.5, 1], [2.5, 2]], series.processes.first.pss_kb
    assert_empty SoakSeries.call(soak_run(processes: samples.first(3))).processes
  end

  def test_the_warm_up_is_marked_from_the_start_of_load
    assert_equal [0.5, 2.5], SoakSeries.call(soak_run, warmup: 2.0).warmup
    assert_nil SoakSeries.call(soak_run, warmup: 0.0).warmup
    assert_nil SoakSeries.call(soak_run).warmup
  end

  def test_a_long_run_is_thinned_to_at_most_max_points
    points = Array.new(2500) { |i| [i.to_f, i] }
    thinned = SoakSeries.thin(points)

    assert_operator thinned.size, :<=, SoakSeries::MAX_POINTS
    assert_equal points.last.first, thinned.last.first
  end
end
