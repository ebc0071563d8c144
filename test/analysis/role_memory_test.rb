# frozen_string_literal: true

require "test_helper"

# A job backend's tree by role: each process's role by its title, and per role its processes' PSS summed at each
# tick, so the roles add up to the tree's.
class RoleMemoryTest < Minitest::Test
  Run = Mallard::Run
  TITLES = { 1 => "solid-queue-fork-supervisor(1.7.2): supervising 2, 3, 4",
             2 => "solid-queue-dispatcher(1.7.2): dispatching every 1 seconds",
             3 => "solid-queue-worker(1.7.2): waiting for jobs in *",
             4 => "solid-queue-worker(1.7.2): processing 1 jobs" }.freeze

  # Four ticks, the first warm-up; the titles come on the first tick only (the sampler's smaps ticks). The workers'
  # PSS grows 1 MiB a tick each.
  def test_each_role_is_its_processes_summed_in_the_trees_order
    roles = Mallard::Analysis::RoleMemory.call(solid_queue_run, window)

    assert_equal %w[supervisor dispatcher worker], roles.map(&:role)
    worker = roles.last
    assert_equal [2, 86_000, 82_000, 88_000, 88_000], worker.to_h.values_at(:processes, :steady_pss_kb, :first_pss_kb,
                                                                            :last_pss_kb, :peak_pss_kb)
    assert_equal [[1.0, 82_000], [2.0, 84_000], [3.0, 86_000], [4.0, 88_000]], worker.points
    steady_tree = roles.sum(&:steady_pss_kb)
    assert_equal 30_000 + 20_000 + 86_000, steady_tree, "the roles add up to the tree"
  end

  def test_the_workers_are_known_by_their_titles
    assert_equal [3, 4], Mallard::Analysis::RoleMemory.worker_pids(solid_queue_run).sort
  end

  def test_a_web_apps_run_or_a_tree_of_one_role_has_none
    web = solid_queue_run.with(meta: Run::Meta.new(subject_pid: 1))
    untitled = solid_queue_run.with(processes: solid_queue_run.processes.map { |sample| sample.with(title: nil) })

    assert_nil Mallard::Analysis::RoleMemory.call(web, window)
    assert_nil Mallard::Analysis::RoleMemory.call(untitled, window)
  end

  def test_a_long_series_keeps_at_most_its_points_and_its_last
    processes = (1..150).flat_map { |t| [sample(t, 1, pss: 30_000), sample(t, 3, pss: 40_000 + t)] }
    roles = Mallard::Analysis::RoleMemory.call(solid_queue_run.with(processes: processes), window)

    assert_operator roles.last.points.size, :<=, Mallard::Analysis::RoleMemory::POINTS + 1
    assert_equal [150.0, 40_150], roles.last.points.last
  end

  private

  def solid_queue_run
    processes = (1..4).flat_map do |t|
      [sample(t, 1, pss: 30_000), sample(t, 2, pss: 20_000),
       sample(t, 3, pss: 40_000 + (t * 1000)), sample(t, 4, pss: 40_000 + (t * 1000))]
    end
    meta = Run::Meta.new(subject_pid: 1, target: Run::TargetInfo.new(kind: "solid_queue"))
    Run::SoakRun.new(meta: meta, totals: [], processes: processes)
  end

  def window
    totals = (2..4).map { |t| Run::TotalSample.new(t: t.to_f, processes: 4, pss_kb: 100_000) }
    Mallard::Analysis::SteadyWindow::Window.new(samples: totals, warmup_samples: 1, metric: :pss_kb)
  end

  def sample(time, pid, pss:)
    Run::ProcessSample.new(t: time.to_f, pid: pid, role: pid == 1 ? "main" : "child", rss_kb: pss * 2, uss_kb: pss / 2,
                           pss_kb: pss, title: (TITLES[pid] if time == 1))
  end
end
