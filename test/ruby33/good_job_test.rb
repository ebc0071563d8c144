# frozen_string_literal: true

require "test_helper"
require_relative "../support/job_backend_soaks"

# GoodJob end to end on Ruby 3.3.8 (its gems installed there by bin/rubies): the fixture app's bin/good_job start
# against a PostgreSQL server of the run's own (Debian's postgresql), under a steady job load enqueued through the
# app's Active Job. Lighter than Solid Queue's test: one short soak shares its assertions (the jobs counted inside
# agreeing with GoodJob's own count, the process's PSS against this test's own reads of smaps_rollup, nothing left
# after it), and a SIGKILL of mallard mid-run leaves no worker and no server.
class GoodJobTest < Minitest::Test
  include JobBackendSoaks

  APP = File.expand_path("../fixtures/apps/good_job", __dir__)
  DURATION = 12
  PSS_TOLERANCE = 0.02
  # The test's reads begin once the load has run this long: past the worker's first jobs.
  SETTLE_S = 4

  def setup
    super
    skip "PostgreSQL is not installed" unless Mallard::Target::PostgresServer.bin_dir
    File.chmod(0o755, @tmp) # so the postgres user reaches the run directory, where the cluster then goes
  end

  def test_a_worker_is_soaked_with_its_jobs_and_its_memory_and_leaves_nothing
    reads = Hash.new { |hash, key| hash[key] = [] }
    summary, status, err = soak_watched("good_job", reads)

    assert_equal 0, status.exitstatus, err
    assert_equal "complete", summary["status"], summary["reason"]
    assert_jobs summary["jobs"]
    assert_memory_is_the_processs_own summary["memory"], reads
    assert_operator reads["server"].size, :>=, 2, "the postmaster and its helpers, seen during the run"
    assert_gone(reads["pids"] + reads["server"] + processes_left_by_mallard(@tag), within: 5)
    refute_path_exists File.join(@out, "postgres"), "the run's cluster is removed with it"
  end

  # The Lifeline's watchdog ends what mallard started (the worker's and the server's process groups, the workload)
  # when mallard itself is killed with SIGKILL mid-run.
  def test_mallard_killed_mid_run_leaves_no_process
    started = killed_mid_soak("good_job") { subject_pids + server_pids + processes_tagged(@tag) }

    assert_operator started.uniq.size, :>=, 6, "mallard, its watchdog, the worker, the server's processes, the workload"
    assert_gone(started, within: 8)
  end

  private

  # Lighter than Solid Queue's: jobs ran at about the pushed pace, none failed, the queue wait was measured, and the
  # agent's count inside the worker agrees with the finished rows GoodJob keeps once the queues drained.
  def assert_jobs(jobs)
    assert_operator jobs["processed"], :>, 40 * (DURATION - 4), jobs.inspect
    assert_equal 0, jobs["failed"]
    assert_operator jobs["per_s"], :>, 40, jobs.inspect
    assert_equal jobs["processed"], jobs["redis_processed"], "the agent's count against GoodJob's own"
    wait = jobs["queue_latency_ms"]
    assert_operator wait["p50"], :>, 0, wait.inspect
    assert_operator wait["p99"], :>=, wait["p50"]
    assert jobs["drained"], jobs.inspect
  end

  # GoodJob runs its jobs on threads of one process: the summary's steady PSS against the median of this test's own
  # sums over the subject's tree.
  def assert_memory_is_the_processs_own(memory, reads)
    assert_equal 1, memory["processes"], memory.inspect
    assert_operator reads["tree"].size, :>=, 6, "this test's reads during the load"
    own = median(reads["tree"])
    assert_in_delta own, memory["steady_pss_kb"], PSS_TOLERANCE * own,
                    "#{memory['steady_pss_kb']} KiB in the summary, #{own} KiB read here"
  end

  # The PSS of each process of the subject's tree from smaps_rollup, summed; and the server's processes, for the check
  # that they went.
  def read_tree(reads, _mallard)
    pids = subject_pids
    reads["pids"] |= pids
    reads["server"] |= server_pids
    reads["tree"] << pids.sum { |pid| pss_of(pid) }
  rescue SystemCallError, TypeError, JSON::ParserError
    nil # a process went away mid-read: this tick is not whole
  end

  # The postmaster (the first line of its pid file) and its children: each of them leads a process group of its own
  # (PostgreSQL's children call setsid), and ends when it sees the postmaster gone.
  def server_pids
    tree_pids(Integer(File.readlines(File.join(@out, "postgres", "data", "postmaster.pid")).first))
  rescue SystemCallError, ArgumentError
    []
  end
end
