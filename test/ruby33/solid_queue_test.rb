# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# Solid Queue end to end on Ruby 3.3.8 (its gems installed there by bin/rubies): the fixture app's bin/jobs in fork
# mode against a SQLite store of the run's own, under a steady job load enqueued through the app's Active Job. The
# summary's memory per role is checked against this test's own reads of each process's smaps_rollup, sorted into
# roles by this test's own reading of Solid Queue's titles.
class SolidQueueTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/solid_queue", __dir__)
  DURATION = 25
  PSS_TOLERANCE = 0.02
  # The test's reads begin once the load has run this long: the tree settles after its workers' first jobs.
  SETTLE_S = 8
  TITLE = /\Asolid-queue-(?:fork-)?(supervisor|dispatcher|scheduler|worker)\(/

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-solid-queue")
    @out = File.join(@tmp, "run")
    @tag = new_tag("solid-queue")
    @ruby = Rubies.path(Rubies::STOCK)
    Rubies.extensions(Rubies::STOCK) # built once, outside the run's time
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_a_fork_mode_worker_is_soaked_with_its_jobs_and_its_memory_per_role
    reads = Hash.new { |hash, role| hash[role] = [] }
    summary, status, err = soak_watched(reads)

    assert_equal 0, status.exitstatus, err
    assert_equal "complete", summary["status"], summary["reason"]
    assert_jobs summary["jobs"]
    assert_roles_are_the_processes_own summary["roles"], reads
    assert_roles_judged_and_explained summary["roles"], summary["jobs"]
    assert_roles_slopes_are_the_trees summary["roles"], summary["verdict"]
    assert_roles_drawn File.read(File.join(@tmp, "soak.html")), summary["roles"]
    assert_gone(reads["pids"] + processes_left_by_mallard(@tag), within: 5)
    refute_path_exists File.join(@out, "queue-store"), "the run's store is removed with it"
  end

  # The Lifeline's watchdog ends what mallard started (the supervisor's process group, the workload) when mallard
  # itself is killed with SIGKILL mid-run.
  def test_mallard_killed_mid_run_leaves_no_process
    mallard = Process.spawn({ "MALLARD_TEST_TAG" => @tag }, Gem.ruby, EXE, "soak", "--jobs", "solid_queue",
                            "--workload", File.join(APP, "workload.rb"), "--ruby", @ruby, "--duration", "30",
                            "--out", @out, APP, out: File::NULL, err: File::NULL)
    @spawned << mallard
    wait_for(timeout: 40, message: "the load never started") { File.exist?(File.join(@out, "workload.log")) }
    started = subject_pids + processes_tagged(@tag)

    Process.kill("KILL", mallard)
    Process.wait(mallard)

    assert_operator started.uniq.size, :>=, 7, "mallard, its watchdog, the supervisor and its three, the workload"
    assert_gone(started, within: 8)
  end

  private

  # Solid Queue's titles overwrite its processes' environment area, MALLARD_TEST_TAG with it: they are known by the
  # subject's tree instead.
  def assert_gone(pids, within:)
    left = -> { pids.uniq.select { |pid| File.exist?("/proc/#{pid}") && !zombie?("/proc/#{pid}") } }
    assert eventually(within) { left.call.empty? }, -> { "survived mallard: #{command_lines(left.call)}" }
  end

  def subject_pids = tree_pids(JSON.parse(File.read(File.join(@out, "meta.json")))["subject_pid"])

  def soak_watched(reads)
    out_file = File.join(@tmp, "summary.json")
    err_file = File.join(@tmp, "err.log")
    pid = Process.spawn({ "MALLARD_TEST_TAG" => @tag, "RUBY_YJIT_ENABLE" => "1" }, Gem.ruby, EXE, "soak",
                        "--jobs", "solid_queue", "--workload", File.join(APP, "workload.rb"), "--ruby", @ruby,
                        "--duration", DURATION.to_s, "--json", "--html", File.join(@tmp, "soak.html"), "--out", @out,
                        APP, out: out_file, err: err_file)
    watcher = Thread.new { watch(reads) }
    _, status = Timeout.timeout(DURATION + 60) { Process.wait2(pid) }
    watcher.kill
    [JSON.parse(File.read(out_file)), status, File.read(err_file)]
  end

  def assert_jobs(jobs)
    assert_operator jobs["processed"], :>, 50 * (DURATION - 5), jobs.inspect
    assert_equal 0, jobs["failed"]
    assert_operator jobs["per_s"], :>, 50, jobs.inspect
    wait = jobs["queue_latency_ms"]
    assert_operator wait["p50"], :>, 0, wait.inspect
    assert_operator wait["p99"], :>=, wait["p50"]
    assert jobs["drained"], jobs.inspect
    assert_equal jobs["redis_processed"], jobs["processed"], "the agent counts every job Solid Queue's store finished"
  end

  # Each role's steady PSS against the median of this test's own sums of its processes, and the roles' sum against
  # the median of this test's sums of the whole tree.
  def assert_roles_are_the_processes_own(roles, reads)
    steady = roles.to_h { |role| [role["role"], role["steady_pss_kb"]] }
    assert_equal %w[supervisor dispatcher scheduler worker], steady.keys, roles.inspect
    assert_operator reads["tree"].size, :>=, 10, "this test's reads during the load"
    steady.each do |role, kb|
      own = median(reads[role])
      assert_in_delta own, kb, PSS_TOLERANCE * own, "#{role}: #{kb} KiB in the summary, #{own} KiB read here"
    end
    tree = median(reads["tree"])
    assert_in_delta tree, steady.values.sum, PSS_TOLERANCE * tree, "the roles' sum against the tree's"
  end

  # Each role judged against the tree's jobs (the workers ran them all, the others none) and explained by its ledger's
  # parts, read in every role's process: the parts add up to what the agent read of its RSS.
  def assert_roles_judged_and_explained(roles, jobs)
    by_role = roles.to_h { |role| [role["role"], role] }
    assert_in_delta jobs["processed"], by_role["worker"]["jobs"], jobs["processed"] * 0.05, "the workers ran them"
    %w[supervisor dispatcher scheduler].each { |idle| assert_equal 0, by_role[idle]["jobs"], idle }
    roles.each do |role|
      verdict = role["verdict"]
      assert_includes %w[growing plateaued inconclusive], verdict["memory"], role.inspect
      assert_operator verdict["requests_observed"], :>, 50 * SETTLE_S, "#{role['role']}: over the tree's jobs"
      assert_operator verdict["samples"], :>=, 6, "#{role['role']}: a 25 s run is not too thin"
      assert_role_ledger role
    end
  end

  # The roles' PSS adds up to the tree's at each tick, and a slope fitted on the same axis is linear in the levels, so
  # the roles' slopes add up to the run's own (whose memory is the tree's summed PSS).
  def assert_roles_slopes_are_the_trees(roles, verdict)
    assert_equal "pss_kb", verdict["metric"], "a tree is judged on its summed PSS"
    tree = verdict["slope_kb_per_1k_jobs"]
    width = verdict["ci"][1] - verdict["ci"][0]
    assert_in_delta tree, roles.sum { |role| role["verdict"]["slope_kb_per_1k_jobs"] }, 0.02 * [tree.abs, width].max,
                    roles.map { |role| role["verdict"] }.inspect
  end

  def assert_role_ledger(role)
    ledger = role["ledger"]
    assert_equal role["processes"], ledger["processes_read"], "#{role['role']}: the agent runs in every process"
    parts = ledger["parts"].to_h { |part| [part["name"], part["kb"]] }
    assert_operator parts["ruby live objects"], :>, 0, role.inspect
    assert_equal ledger["rss_kb"], parts.values.compact.sum, "#{role['role']}: the parts add up to its RSS"
  end

  # The HTML page's roles section: the chart of each role's PSS and a row a role.
  def assert_roles_drawn(html, roles)
    section = html[%r{<section id="roles">.*?</section>}m]
    assert section, "the page has the roles"
    assert_includes section, "<title>PSS per role over time</title>"
    assert_equal(roles.map { |role| role["role"] }, section.scan(%r{<th scope="row">(\w+)</th>}).flatten)
  end

  # Every half second once the load has settled, until the run writes its summary: each process of the subject's
  # tree, its role by its title and its PSS from smaps_rollup, summed per role and over the tree.
  def watch(reads)
    started = nil
    loop do
      started ||= now if loading?
      read_tree(reads) if started && now - started >= SETTLE_S && !File.exist?(summary_path)
      sleep 0.5
    end
  end

  def read_tree(reads)
    sums = Hash.new(0)
    pids = subject_pids
    reads["pids"] |= pids
    pids.each do |pid|
      role = File.read("/proc/#{pid}/cmdline")[TITLE, 1] or next
      sums[role] += Integer(File.read("/proc/#{pid}/smaps_rollup")[/^Pss:\s+(\d+)/, 1])
    end
    sums.each { |role, kb| reads[role] << kb }
    reads["tree"] << sums.values.sum
  rescue SystemCallError, TypeError, JSON::ParserError
    nil # a process went away mid-read: this tick is not whole
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
