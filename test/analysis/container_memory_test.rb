# frozen_string_literal: true

require "test_helper"

# Memory as a container counts it, from a soak's records: the subject's cgroup over the run, and --memory-limit
# watched against the tree's summed PSS.
class ContainerMemoryTest < Minitest::Test
  Run = Mallard::Run
  MIB = 1024

  def test_the_cgroup_s_charge_steady_at_its_peak_and_what_the_run_added_to_its_counters
    cgroups = [cgroup(0.5, 100, failcnt: 3, oom_kills: 1), cgroup(2.5, 180), cgroup(4.5, 160),
               cgroup(6.5, 170, failcnt: 5, oom_kills: 1)]
    container = Mallard::Analysis::ContainerMemory.call(soak_run(cgroups: cgroups))

    assert_equal 170 * MIB, container.steady_kb, "the median over the load (2.5 … 6.5 s), not the boot's tick"
    assert_equal [180, 150, 30, 900].map { |mib| mib * MIB },
                 [container.peak_kb, container.peak_anon_kb, container.peak_file_kb, container.kernel_peak_kb]
    assert_equal 130 * MIB, container.peak_tree_pss_kb, "the tree's PSS at the peak's tick"
    assert_equal [2, 0], [container.failcnt, container.oom_kills]
    assert_equal [6, 2, 4], [container.processes, container.tree_processes, container.samples]
    assert_predicate container, :shared?
  end

  def test_no_cgroup_read_is_no_container
    assert_nil Mallard::Analysis::ContainerMemory.call(soak_run(cgroups: []))
  end

  def test_a_limit_above_the_peak_leaves_headroom
    limit = Mallard::Analysis::MemoryLimit.call(soak_run(limit: "200M"))

    assert_equal [200 * MIB, "pss_kb", false], [limit.limit_kb, limit.held, limit.enforced]
    assert_equal 150 * MIB, limit.peak_kb
    assert_equal 50 * MIB, limit.headroom_kb
    refute_predicate limit, :crossed?
  end

  def test_a_limit_crossed_says_when_and_by_how_much
    limit = Mallard::Analysis::MemoryLimit.call(soak_run(limit: "135M"))

    assert_predicate limit, :crossed?
    assert_in_delta 4.5, limit.crossed_t
    assert_in_delta 3.0, limit.crossed_load_s
    assert_equal [140 * MIB, 5 * MIB, 180 * MIB], [limit.crossed_kb, limit.over_kb, limit.crossed_rss_kb]
    assert_equal(-15 * MIB, limit.headroom_kb)
  end

  # PSS, not RSS: the workers' shared pages count once, as the cgroup charges them.
  def test_the_figure_held_is_summed_pss
    assert Mallard::Analysis::MemoryLimit.over?(141 * MIB, 140 * MIB)
    refute Mallard::Analysis::MemoryLimit.over?(140 * MIB, 140 * MIB)
    assert_nil Mallard::Analysis::MemoryLimit.call(soak_run)
  end

  private

  def soak_run(cgroups: [], limit: nil)
    phases = Run::Phases.new(load_started_t: 1.5, load_finished_t: 7.0)
    meta = Run::Meta.new(options: limit ? { "memory_limit" => limit } : {}, phases: phases)
    Run::SoakRun.new(meta: meta, totals: [total(0.5, 90, 100), total(2.5, 130, 170), total(4.5, 140, 180),
                                          total(6.5, 150, 190)], cgroups: cgroups)
  end

  def total(time, pss, rss) = Run::TotalSample.new(t: time, pss_kb: pss * MIB, rss_kb: rss * MIB, processes: 2)

  def cgroup(time, usage, failcnt: 0, oom_kills: 0)
    Run::CgroupSample.new(t: time, version: 1, path: "/jobs/42", usage_kb: usage * MIB, peak_kb: 900 * MIB,
                          anon_kb: (usage - 30) * MIB, file_kb: 30 * MIB, limit_kb: nil, failcnt: failcnt,
                          oom_kills: oom_kills, processes: 6, tree_processes: 2)
  end
end
