# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# GoodJob end to end on Ruby 3.3.8 (its gems installed there by bin/rubies): the fixture app's bin/good_job start
# against a PostgreSQL server of the run's own (Debian's postgresql), under a steady job load enqueued through the
# app's Active Job. Lighter than Solid Queue's test: one short soak shares its assertions (the jobs counted inside
# agreeing with GoodJob's own count, the process's PSS against this test's own reads of smaps_rollup, nothing left
# after it), and a SIGKILL of mallard mid-run leaves no worker and no server.
class GoodJobTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/good_job", __dir__)
  DURATION = 12
  PSS_TOLERANCE = 0.02
  # The test's reads begin once the load has run this long: past the worker's first jobs.
  SETTLE_S = 4

  def setup
    super
    skip "PostgreSQL is not installed" unless Mallard::Target::PostgresServer.bin_dir
    @tmp = Dir.mktmpdir("mallard-good-job")
    File.chmod(0o755, @tmp) # so the postgres user reaches the run directory, where the cluster then goes
    @out = File.join(@tmp, "run")
    @tag = new_tag("good-job")
    @ruby = Rubies.path(Rubies::STOCK)
    Rubies.extensions(Rubies::STOCK) # built once, outside the run's time
  end

  def teardown
    FileUtils.remove_entry(@tmp) if @tmp
    super
  end

  def test_a_worker_is_soaked_with_its_jobs_and_its_memory_and_leaves_nothing
    reads = Hash.new { |hash, key| hash[key] = [] }
    summary, status, err = soak_watched(reads)

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
    mallard = Process.spawn({ "MALLARD_TEST_TAG" => @tag }, Gem.ruby, EXE, "soak", "--jobs", "good_job",
                            "--workload", File.join(APP, "workload.rb"), "--ruby", @ruby, "--duration", "30",
                            "--out", @out, APP, out: File::NULL, err: File::NULL)
    @spawned << mallard
    wait_for(timeout: 40, message: "the load never started") { File.exist?(File.join(@out, "workload.log")) }
    started = subject_pids + server_pids + processes_tagged(@tag)

    Process.kill("KILL", mallard)
    Process.wait(mallard)

    assert_operator started.uniq.size, :>=, 6, "mallard, its watchdog, the worker, the server's processes, the workload"
    assert_gone(started, within: 8)
  end

  private

  def assert_gone(pids, within:)
    left = -> { pids.uniq.select { |pid| File.exist?("/proc/#{pid}") && !zombie?("/proc/#{pid}") } }
    assert eventually(within) { left.call.empty? }, -> { "survived mallard: #{command_lines(left.call)}" }
  end

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

  def soak_watched(reads)
    out_file = File.join(@tmp, "summary.json")
    err_file = File.join(@tmp, "err.log")
    pid = Process.spawn({ "MALLARD_TEST_TAG" => @tag }, Gem.ruby, EXE, "soak", "--jobs", "good_job", "--workload",
                        File.join(APP, "workload.rb"), "--ruby", @ruby, "--duration", DURATION.to_s, "--json",
                        "--out", @out, APP, out: out_file, err: err_file)
    watcher = Thread.new { watch(reads) }
    _, status = Timeout.timeout(DURATION + 60) { Process.wait2(pid) }
    watcher.kill
    [JSON.parse(File.read(out_file)), status, File.read(err_file)]
  end

  # Every half second once the load has settled, until the run writes its summary: the PSS of each process of the
  # subject's tree from smaps_rollup, summed; and the server's processes, for the check that they went.
  def watch(reads)
    started = nil
    loop do
      started ||= now if loading?
      read_tree(reads) if started && now - started >= SETTLE_S && !File.exist?(summary_path)
      sleep 0.5
    end
  end

  def read_tree(reads)
    pids = subject_pids
    reads["pids"] |= pids
    reads["server"] |= server_pids
    reads["tree"] << pids.sum { |pid| Integer(File.read("/proc/#{pid}/smaps_rollup")[/^Pss:\s+(\d+)/, 1]) }
  rescue SystemCallError, TypeError, JSON::ParserError
    nil # a process went away mid-read: this tick is not whole
  end

  def subject_pids = tree_pids(JSON.parse(File.read(File.join(@out, "meta.json")))["subject_pid"])

  # The postmaster (the first line of its pid file) and its children: each of them leads a process group of its own
  # (PostgreSQL's children call setsid), and ends when it sees the postmaster gone.
  def server_pids
    tree_pids(Integer(File.readlines(File.join(@out, "postgres", "data", "postmaster.pid")).first))
  rescue SystemCallError, ArgumentError
    []
  end

  def tree_pids(root)
    pids = [root]
    pids.each do |pid|
      Dir.glob("/proc/#{pid}/task/*/children").each { |file| pids.concat(File.read(file).split.map(&:to_i)) }
    end
    pids.uniq
  end

  def loading? = File.size?(File.join(@out, "samples.jsonl")) && File.exist?(File.join(@out, "meta.json"))
  def summary_path = File.join(@out, "summary.json")
  def median(values) = values.sort[values.size / 2]
  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
end
