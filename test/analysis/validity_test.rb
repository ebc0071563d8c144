# frozen_string_literal: true

require "test_helper"

class ValidityTest < Minitest::Test
  Run = Mallard::Run
  Validity = Mallard::Analysis::Validity

  MASTER = 100

  # A cluster: the master (which serves nothing) and one worker per count, each with its last cumulative count.
  def cluster(*served, totals: [])
    records = [Run::AgentRecord.new(t: 1.0, pid: MASTER, requests: 0)]
    served.each_with_index do |count, i|
      records << Run::AgentRecord.new(t: 1.0, pid: MASTER + 1 + i, requests: count / 2)
      records << Run::AgentRecord.new(t: 2.0, pid: MASTER + 1 + i, requests: count)
    end
    phases = Run::Phases.new(load_started_t: 0.0, load_finished_t: 10.0)
    meta = Run::Meta.new(target: Run::TargetInfo.new(kind: "rack"), subject_pid: MASTER, phases: phases)
    Run::SoakRun.new(path: "x", meta: meta, totals: totals, processes: [], agent: records.sort_by(&:t), skipped: 0)
  end

  def test_workers_that_served_nothing_make_the_run_invalid
    validity = Validity.call(cluster(0, 0, 727))

    refute validity.valid?
    assert_equal 1, validity.problems.size
    assert_includes validity.problems.first, "requests per process [0, 0, 727]"
    assert_includes validity.problems.first, "2 served under 25% of an even share"
    assert_equal({ "101" => 0, "102" => 0, "103" => 727 }, validity.requests_per_process, "the master is left out")
  end

  def test_an_even_split_is_valid
    validity = Validity.call(cluster(240, 251, 236))

    assert validity.valid?
    assert_empty validity.problems
    assert_equal [240, 251, 236], validity.requests_per_process.values
  end

  def test_a_single_process_serving_alone_is_valid
    single = Run::SoakRun.new(path: "x", meta: Run::Meta.new(subject_pid: 7), totals: [], processes: [],
                              agent: [Run::AgentRecord.new(t: 1.0, pid: 7, requests: 500)], skipped: 0)

    assert Validity.call(single).valid?
    assert_equal({ "7" => 500 }, Validity.call(single).requests_per_process)
  end

  def test_a_machine_busy_with_other_work_makes_the_run_invalid
    # 4 s of load: the machine was busy 10 CPU-s, mallard's own tree 2 of them: 2 cores elsewhere.
    busy = [sample(1.0, machine: 100.0, own: 10.0), sample(5.0, machine: 110.0, own: 12.0)]
    validity = Validity.call(cluster(240, 250, totals: busy))

    assert_in_delta 2.0, validity.foreign_cores
    refute validity.valid?
    assert_match(/\Athe machine was busy with other work: 2\.00 cores/, validity.problems.first)
  end

  def test_a_quiet_machine_or_no_cpu_figures_is_no_problem
    quiet = [sample(1.0, machine: 100.0, own: 10.0), sample(5.0, machine: 105.0, own: 14.0)]

    assert_in_delta 0.25, Validity.call(cluster(240, 250, totals: quiet)).foreign_cores
    assert Validity.call(cluster(240, 250, totals: quiet)).valid?
    assert_nil Validity.call(cluster(240, 250, totals: [sample(1.0, machine: nil, own: nil)])).foreign_cores
  end

  # A run with no agent (a comparison's counted runs) counts no requests: the work each worker did is its CPU from the
  # load's first tick to its last. Worker 2 here idled through the load, as one of a 2x1 Puma's did once in a fresh
  # clone with all ten keep-alive connections on its sibling.
  def test_without_the_agent_a_worker_whose_cpu_stayed_flat_makes_the_run_invalid
    validity = Validity.call(agentless(101 => [1.0, 1.9, 2.8], 102 => [1.0, 1.01, 1.02]))

    refute validity.valid?
    assert_equal({ "101" => 1.8, "102" => 0.02 }, validity.cpu_s_per_worker, "the master is left out")
    assert_equal "load did not reach every worker: CPU seconds per worker while load ran [1.8, 0.02] " \
                 "(1 worked under 25% of an even share)", validity.problems.first
    assert_empty validity.requests_per_process
  end

  def test_without_the_agent_an_uneven_split_that_reached_both_workers_is_valid
    validity = Validity.call(agentless(101 => [1.0, 1.9, 2.8], 102 => [1.0, 1.3, 1.6]))

    assert validity.valid?
    assert_equal({ "101" => 1.8, "102" => 0.6 }, validity.cpu_s_per_worker)
  end

  # A worker forked during the load (a refork, a restart) was not there for all of it: its CPU is not a share.
  def test_a_worker_not_there_for_the_whole_load_is_not_judged
    validity = Validity.call(agentless(101 => [1.0, 1.9, 2.8], 102 => [nil, 0.5, 0.51]))

    assert validity.valid?
    assert_equal({ "101" => 1.8 }, validity.cpu_s_per_worker)
  end

  # A run the agent counted is judged on its counts, not on CPU.
  def test_where_the_agent_counted_requests_cpu_is_not_read
    run = agentless(101 => [1.0, 1.9, 2.8], 102 => [1.0, 1.01, 1.02])
    counted = run.with(agent: cluster(240, 250).agent)

    assert Validity.call(counted).valid?
    assert_empty Validity.call(counted).cpu_s_per_worker
  end

  private

  # A preloaded 2x1 Puma sampled from outside at t 1, 2 and 3 s of a load from 0.5 to 3.5 s: the master, and each
  # worker's CPU seconds at those ticks (nil: not yet forked). A tick before the load, at 0.2 s, finds every worker
  # booted, at half a second of CPU: the load's CPU is counted from the load's first tick.
  def agentless(cpu_by_worker)
    ticks = [0.2, 1.0, 2.0, 3.0]
    processes = ticks.map { |t| process(t, MASTER, "puma 8.0.2 (tcp://127.0.0.1:9292) [app]", 3.0) }
    cpu_by_worker.each_with_index do |(pid, cpus), i|
      ticks.zip([cpus.first && 0.5, *cpus]).each do |t, cpu|
        processes << process(t, pid, "puma: cluster worker #{i}: #{MASTER} [app]", cpu) if cpu
      end
    end
    phases = Run::Phases.new(load_started_t: 0.5, load_finished_t: 3.5)
    meta = Run::Meta.new(target: Run::TargetInfo.new(kind: "rack"), subject_pid: MASTER, phases: phases)
    totals = ticks.map { |t| Run::TotalSample.new(t: t, rss_kb: 1, processes: 3) }
    Run::SoakRun.new(path: "x", meta: meta, totals: totals, processes: processes.sort_by(&:t), agent: [], skipped: 0)
  end

  def process(time, pid, title, cpu)
    Run::ProcessSample.new(t: time, pid: pid, role: pid == MASTER ? "main" : "child", pss_kb: 1, title: title,
                           cpu_s: cpu)
  end

  def sample(time, machine:, own:)
    Run::TotalSample.new(t: time, rss_kb: 1, processes: 3, machine_cpu_s: machine, own_cpu_s: own)
  end
end
