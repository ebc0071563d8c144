# frozen_string_literal: true

require "test_helper"
require "json"

# `mallard doctor PID` on a Puma master (issue 42): the tree's shape and what its processes share, read from /proc,
# against each process's own smaps_rollup; a tree whose workers loaded the app themselves is told from a preloaded one.
class DoctorTreeTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/shared_data/config.ru", __dir__)
  WORKERS = 2
  THREADS = 2

  def test_a_preloaded_master_shows_workers_that_share_the_apps_data
    master = puma("--preload")
    report = doctor(master)
    tree = report["tree"]

    assert_equal ["puma", WORKERS, [THREADS] * WORKERS], tree.values_at("server", "workers", "threads")
    assert_equal ["master", "worker 0", "worker 1"], tree["processes"].map { |process| process["role"] }.sort
    assert_operator tree["worker_shared_pct"], :>, 80, "forked from the master that loaded the fixture's 50 MiB"
    assert_equal tree["processes"].sum { |process| process["pss_kb"] }, tree["pss_kb"]
    assert_equal tree["pss_kb"] - tree["uss_kb"], tree["shared_kb"]
    assert_figures_are_the_processes_own(tree)
    refute(report["findings"].any? { |finding| finding["message"].include?("workers share") })
  end

  def test_workers_that_loaded_the_app_themselves_share_little_and_it_is_said
    report = doctor(puma)
    tree = report["tree"]

    assert_operator tree["worker_shared_pct"], :<, 35, "each worker holds its own copy of the 50 MiB"
    assert_operator tree["worker_uss_kb"], :>, 50 * 1024
    assert(report["findings"].any? { |finding| finding["message"].start_with?("its 2 workers share") },
           report["findings"].inspect)
  end

  private

  # Puma on the fixture, returned once both workers run their pool and hold the fixture's data.
  def puma(*flags)
    pid = Process.spawn("puma", "--workers", WORKERS.to_s, "--threads", "#{THREADS}:#{THREADS}", *flags,
                        "--bind", "tcp://127.0.0.1:0", APP, out: File::NULL, err: File::NULL, pgroup: true)
    @spawned << pid
    wait_for(timeout: 30, message: "Puma's workers did not come up") { up?(pid) }
    pid
  end

  def up?(master)
    tree = Mallard::Analysis::TreeShape.call(Mallard::Probe::TreeReading.read(master))
    tree&.workers == WORKERS && tree.threads.all?(THREADS) &&
      tree.processes.drop(1).all? { |worker| worker.rss_kb > 50 * 1024 }
  end

  def doctor(pid)
    out, err, status = mallard("doctor", pid, "--json")
    assert_includes [0, 1], status.exitstatus, err
    JSON.parse(out)
  end

  # Idle processes read moments apart: each one's PSS, USS and RSS within 2% of its own smaps_rollup.
  def assert_figures_are_the_processes_own(tree)
    tree["processes"].each do |process|
      own = Mallard::Probe::MemoryReading.parse(File.read("/proc/#{process['pid']}/smaps_rollup"))
      %w[rss pss uss].each do |kind|
        mine = own["#{kind}_kb"]
        assert_in_delta mine, process["#{kind}_kb"], mine * 0.02, "#{process['role']} #{kind}"
      end
    end
  end

  # Puma's workers too: its whole process group.
  def teardown
    @spawned.each { |pid| kill_group(pid) }
    super
  end

  def kill_group(pid)
    Process.kill("KILL", -pid)
  rescue Errno::ESRCH
    nil
  end
end
