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

  # Solid Queue inside Puma: the Puma at the root, which forked the supervisor, is a role of its own, first, and the
  # tree's summed PSS includes it.
  def test_a_puma_hosting_solid_queue_is_its_own_role_first
    puma = (1..4).map { |t| sample(t, 9, pss: 50_000).with(title: "puma 8.0.2 (tcp://127.0.0.1:3000) [app]") }
    hosted = solid_queue_run.with(processes: puma + solid_queue_run.processes,
                                  meta: solid_queue_run.meta.with(subject_pid: 9))
    roles = Mallard::Analysis::RoleMemory.call(hosted, window)

    assert_equal %w[puma supervisor dispatcher worker], roles.map(&:role)
    assert_equal 50_000 + 30_000 + 20_000 + 86_000, roles.sum(&:steady_pss_kb)
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

  # Twelve ticks of 100 jobs each, all run by the workers; the workers' PSS grows 1 MiB a tick each, the supervisor's
  # and the dispatcher's are flat. Every role is judged against the tree's jobs, by the run's own rule.
  def test_each_roles_pss_is_judged_against_the_trees_jobs
    roles = Mallard::Analysis::RoleMemory.call(judged_run, judged_window).to_h { |role| [role.role, role] }

    worker = roles["worker"].verdict
    assert_equal %w[growing growing jobs pss_kb], worker.to_h.values_at(:memory, :finding, :unit, :metric)
    assert_in_delta 20_480, worker.slope_kb_per_1k, 1, "2 MiB a tick over 100 jobs a tick"
    assert_equal 1000, worker.requests_observed, "the tree's jobs over the steady window (ticks 2 to 12)"
    %w[supervisor dispatcher].each do |flat|
      assert_equal %w[plateaued plateaued], roles[flat].verdict.to_h.values_at(:memory, :finding), flat
      assert_equal worker.requests_observed, roles[flat].verdict.requests_observed, "#{flat}: the tree's jobs"
    end
    assert_equal [0, nil, 1200], roles.values_at("supervisor", "dispatcher", "worker").map(&:jobs),
                 "the supervisor's agent counted none; the dispatcher's recorded nothing"
  end

  # The ledger's readings carry each process's count too: a process whose interval records are missing is counted.
  def test_a_roles_jobs_are_counted_from_its_ledger_readings_without_its_records
    run = judged_run.with(agent: judged_run.agent.reject { |record| record.pid == 4 })
    ledger = run.ledger.map { |reading| reading.pid == 4 ? reading.with(requests: 450 + reading.t.to_i) : reading }
    roles = Mallard::Analysis::RoleMemory.call(run.with(ledger: ledger), judged_window)

    assert_equal 700 + 461, roles.last.jobs, "pid 4's last reading, at 11.5 s"
  end

  def test_a_run_too_short_to_fit_a_slope_says_so
    verdict = Mallard::Analysis::RoleMemory.call(solid_queue_run, window).last.verdict

    assert_equal ["inconclusive", "too_thin", nil, 3], verdict.to_h.values_at(:memory, :finding, :ci, :samples)
  end

  # The ledger's readings in the workers' processes, each its last in the steady window, summed. The supervisor's one
  # reading came before the window and the dispatcher had none, so theirs say nothing was read rather than borrow.
  def test_each_roles_ledger_is_its_processes_parts_in_the_steady_window
    roles = Mallard::Analysis::RoleMemory.call(judged_run, judged_window).to_h { |role| [role.role, role] }
    ledger = roles["worker"].ledger

    assert_equal [2, 100_000, 60_000], ledger.to_h.values_at(:processes_read, :rss_kb, :pss_kb)
    parts = ledger.parts.to_h { |part| [part.name, part] }
    assert_equal [16_000, 40_000, 4_000], parts.values_at("ruby live objects", "malloc in use", "malloc held free")
                                               .map(&:kb)
    assert_equal ledger.rss_kb, ledger.parts.sum(&:kb), "the parts add up to the role's RSS"
    assert_equal ledger.pss_kb, ledger.parts.sum(&:pss_kb), "and in PSS to its PSS"
  end

  def test_a_role_whose_processes_were_not_read_has_no_parts
    roles = Mallard::Analysis::RoleMemory.call(judged_run, judged_window).to_h { |role| [role.role, role] }

    assert_equal [0, []], roles["supervisor"].ledger.to_h.values_at(:processes_read, :parts)
    assert_equal 0, roles["dispatcher"].ledger.processes_read
    assert_nil Mallard::Analysis::RoleMemory.call(judged_run.with(ledger: []), judged_window).last.ledger,
               "a run without ledger readings has none"
  end

  private

  def judged_run
    processes = (1..12).flat_map do |t|
      [sample(t, 1, pss: 30_000), sample(t, 2, pss: 20_000),
       sample(t, 3, pss: 40_000 + (t * 1024)), sample(t, 4, pss: 40_000 + (t * 1024))]
    end
    agent = [Run::AgentRecord.new(t: 12.0, pid: 1, requests: 0), Run::AgentRecord.new(t: 12.0, pid: 3, requests: 700),
             Run::AgentRecord.new(t: 12.0, pid: 4, requests: 500)]
    ledger = [reading(1.0, 1), reading(5.0, 3), reading(6.0, 4), reading(11.0, 3), reading(11.5, 4)]
    solid_queue_run.with(processes: processes, agent: agent, ledger: ledger)
  end

  # Ticks 2 to 12: warm-up was the first.
  def judged_window
    totals = (2..12).map { |t| Run::TotalSample.new(t: t.to_f, processes: 4, pss_kb: 100_000, requests: t * 100) }
    Mallard::Analysis::SteadyWindow::Window.new(samples: totals, warmup_samples: 1, metric: :pss_kb)
  end

  # One process's ledger reading, its mappings read with it: 50 MiB of RSS, 30 MiB of PSS.
  def reading(time, pid)
    Run::LedgerRecord.new(t: time, pid: pid, rss_kb: 50_000, file_kb: 10_000, ruby_live_kb: 8_000,
                          ruby_pages_kb: 10_000, malloc_in_use_kb: 20_000, allocator: "glibc",
                          malloc: { "mallinfo2.fordblks" => 2_000 * 1024 }, stacks_kb: 500, pss_kb: 30_000,
                          file_pss_kb: 2_000, stacks_pss_kb: 500)
  end

  def solid_queue_run
    processes = (1..4).flat_map do |t|
      [sample(t, 1, pss: 30_000), sample(t, 2, pss: 20_000),
       sample(t, 3, pss: 40_000 + (t * 1000)), sample(t, 4, pss: 40_000 + (t * 1000))]
    end
    meta = Run::Meta.new(subject_pid: 1, target: Run::TargetInfo.new(kind: "solid_queue"))
    Run::SoakRun.new(meta: meta, totals: [], processes: processes, agent: [])
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
