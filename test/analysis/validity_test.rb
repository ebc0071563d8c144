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

  private

  def sample(time, machine:, own:)
    Run::TotalSample.new(t: time, rss_kb: 1, processes: 3, machine_cpu_s: machine, own_cpu_s: own)
  end
end
