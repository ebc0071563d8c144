# frozen_string_literal: true

require "test_helper"
require_relative "../support/job_backend_soaks"

# Solid Queue end to end on Ruby 3.3.8 (its gems installed there by bin/rubies): the fixture app's bin/jobs in fork
# mode against a SQLite store of the run's own, under a steady job load enqueued through the app's Active Job. The
# summary's memory per role is checked against this test's own reads of each process's smaps_rollup, sorted into
# roles by this test's own reading of Solid Queue's titles.
class SolidQueueTest < Minitest::Test
  include JobBackendSoaks

  APP = File.expand_path("../fixtures/apps/solid_queue", __dir__)
  DURATION = 25
  PSS_TOLERANCE = 0.02
  # The test's reads begin once the load has run this long: the tree settles after its workers' first jobs.
  SETTLE_S = 8
  TITLE = /\Asolid-queue-(?:fork-)?(supervisor|dispatcher|scheduler|worker)\(/

  def test_a_fork_mode_worker_is_soaked_with_its_jobs_and_its_memory_per_role
    reads = Hash.new { |hash, role| hash[role] = [] }
    summary, status, err = soak_watched("solid_queue", reads, env: { "RUBY_YJIT_ENABLE" => "1" },
                                                              args: ["--html", File.join(@tmp, "soak.html")])

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
    started = killed_mid_soak("solid_queue") { subject_pids + processes_tagged(@tag) }

    assert_operator started.uniq.size, :>=, 7, "mallard, its watchdog, the supervisor and its three, the workload"
    assert_gone(started, within: 8)
  end

  private

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
    %w[supervisor dispatcher scheduler].each { |idle| assert_equal 0, by_role[idle]["jobs"], -> { agent_seen(idle) } }
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

  # What the agent recorded, by process and kind, and the processes' titles: why a role's jobs went uncounted.
  def agent_seen(role)
    records = File.readlines(File.join(@out, "agent.jsonl")).map { |line| JSON.parse(line) }
    titles = File.readlines(File.join(@out, "samples.jsonl")).map { |line| JSON.parse(line) }
                 .select { |sample| sample["title"] }.to_h { |sample| [sample["pid"], sample["title"]] }
    "#{role}: the agent's records #{records.map do |record|
                                      [record['pid'], record['kind']]
                                    end.tally}; titles #{titles}; " \
      "#{File.read(File.join(@out, 'subject.log')).lines.grep(/mallard/).first(3).join}"
  end

  # Each process of the subject's tree, its role by its title and its PSS from smaps_rollup, summed per role and over
  # the tree.
  def read_tree(reads, _mallard)
    sums = Hash.new(0)
    pids = subject_pids
    reads["pids"] |= pids
    pids.each do |pid|
      role = File.read("/proc/#{pid}/cmdline")[TITLE, 1] or next
      sums[role] += pss_of(pid)
    end
    sums.each { |role, kb| reads[role] << kb }
    reads["tree"] << sums.values.sum
  rescue SystemCallError, TypeError, JSON::ParserError
    nil # a process went away mid-read: this tick is not whole
  end
end
