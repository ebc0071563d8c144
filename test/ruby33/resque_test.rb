# frozen_string_literal: true

require "test_helper"
require_relative "../support/job_backend_soaks"

# Resque end to end on Ruby 3.3.8 (its gems installed there by bin/rubies): the fixture app's `rake resque:work`
# against a Redis of the run's own, under jobs pushed through Resque.enqueue. One soak is shared by the checks of its
# jobs, its memory per role (against this test's own reads of smaps_rollup) and what it leaves; one more run is
# killed with SIGKILL. About 35 s in all.
class ResqueTest < Minitest::Test
  include JobBackendSoaks

  APP = File.expand_path("../fixtures/apps/resque", __dir__)
  DURATION = 15
  # Ticks five times a second: the medians compared are of the ticks that caught a child, some thirty of them.
  INTERVAL = 0.2
  PSS_TOLERANCE = 0.02
  # A child's PSS grows through its short life as it writes to pages it shared: the test's reads and mallard's ticks
  # catch children at other moments of theirs (12 children seen by a run spanned 11.3 to 14.3 MiB).
  CHILD_TOLERANCE = 0.05
  # The test's reads, and mallard's ticks they are set against, from this far into the load.
  SETTLE_S = 4
  TITLE = /\Aresque-\d/

  def test_a_resque_worker_is_soaked_with_its_jobs_and_its_parent_and_children
    reads = Hash.new { |hash, key| hash[key] = [] }
    summary, status, err = soak_watched("resque", reads, env: { "RUBY_YJIT_ENABLE" => "1" },
                                                         args: ["--interval", INTERVAL.to_s], every: 0.1)

    assert_equal 0, status.exitstatus, err
    assert_equal "complete", summary["status"], summary["reason"]
    assert_jobs summary["jobs"]
    assert_roles summary["roles"].to_h { |role| [role["role"], role] }, reads
    assert_gone(reads["pids"] + reads["redis"], within: 5)
  end

  # The Lifeline's watchdog ends what mallard started (the parent's process group, the child running a job, Redis, the
  # workload) when mallard itself is killed with SIGKILL mid-run. Jobs of a second each, so that a child is there.
  def test_mallard_killed_mid_run_leaves_no_process
    started = []
    child_running = lambda do |mallard|
      started = tree_pids(mallard)
      started.count { |pid| command_line(pid).match?(TITLE) } >= 2
    end
    killed_mid_soak("resque", env: { "JOB_WAIT" => "1" }, started_when: child_running) { started }
    seen = started.filter_map { |pid| command_line(pid)[/redis-server|resque-|workload\.rb/] }

    assert_equal %w[redis-server resque- workload.rb], seen.uniq.sort, "Redis, the worker, the workload"
    assert_operator seen.count("resque-"), :>=, 2, "the parent and a child"
    assert_gone(started, within: 8)
  end

  private

  # Every job counted by the agent, as Resque counts them itself (stat:processed, read at the run's last tick).
  def assert_jobs(jobs)
    assert_operator jobs["processed"], :>, 5 * (DURATION - 5), jobs.inspect
    assert_equal jobs["redis_processed"], jobs["processed"], "the agent's count against Resque's stat:processed"
    assert_equal 0, jobs["failed"]
    assert_operator jobs["per_s"], :>, 5, jobs.inspect
    wait = jobs["queue_latency_ms"]
    assert_operator wait["p50"], :>, 0, wait.inspect
    assert_operator wait["p99"], :>=, wait["p50"]
    assert jobs["drained"], jobs.inspect
  end

  # The roles as mallard read them at its ticks that caught a child (samples.jsonl: the summary's points are thinned),
  # against this test's own reads that did: the parent's PSS, the parent's and the child's summed (the tree's), and the
  # child's. Only those: while a child lives, the parent's PSS is about half its own (their shared pages are split
  # between them), so the parent's PSS over a run has two levels, and a median over ticks is of whichever its ticks
  # happened to catch more often.
  def assert_roles(roles, reads)
    assert_equal %w[parent child], roles.keys, roles.inspect
    children = ticks_with_a_child(from: 0).flat_map { |_, each| each.keys }.uniq
    assert_equal children.size, roles.dig("child", "processes"), "the children mallard's ticks caught"
    ticks = ticks_with_a_child(from: SETTLE_S)
    assert_operator ticks.size, :>=, 10, "mallard's ticks that caught a child"
    assert_operator reads["tree"].size, :>=, 10, "this test's reads that caught a child"
    parent = ticks.map(&:first)
    children = ticks.map { |_, each| each.values.sum }
    assert_close reads["parent"], parent, PSS_TOLERANCE, "the parent's PSS"
    assert_close reads["tree"], parent.zip(children).map(&:sum), PSS_TOLERANCE, "the parent's and child's"
    assert_close reads["child"], children, CHILD_TOLERANCE, "a child's PSS"
  end

  def assert_close(own, mallards, tolerance, what)
    expected = median(own)
    assert_in_delta expected, median(mallards), tolerance * expected, "#{what}: #{mallards.inspect} read by mallard"
  end

  # @return [Array(Integer, Hash{Integer => Integer})] per tick with a child, the parent's PSS and each child's
  # from seconds into the load (SETTLE_S, as this test's reads are: the parent grows over its first jobs).
  def ticks_with_a_child(from:)
    root = meta["subject_pid"]
    memory_ticks(from + meta.dig("phases", "load_started_t")).filter_map do |at|
      parent, children = at.partition { |record| record["pid"] == root }
      next if parent.empty? || children.empty?

      [parent.first["pss_kb"], children.to_h { |child| [child["pid"], child["pss_kb"]] }]
    end
  end

  # The sampler's memory records from samples.jsonl, by tick.
  def memory_ticks(from)
    records = File.readlines(File.join(@out, "samples.jsonl")).map { |line| JSON.parse(line) }
    records.select { |record| record["kind"] == "memory" && record["t"] >= from }.group_by { |record| record["t"] }
           .values
  end

  # A read that caught a child whole (not one exiting, whose memory is already gone: mallard skips those too).
  def read_tree(reads, mallard)
    root = meta["subject_pid"]
    reads["redis"] |= tree_pids(mallard).select { |pid| command_line(pid).include?("redis-server") }
    pss = tree_pids(root).to_h { |pid| [pid, pss_kb(pid)] }
    reads["pids"] |= pss.keys
    children = pss.except(root).values.compact
    record(reads, pss[root], children.sum) unless children.empty? || children.include?(0)
  rescue SystemCallError, TypeError, JSON::ParserError
    nil # a child went away mid-read: this read is not whole
  end

  def record(reads, parent, child)
    reads["parent"] << parent
    reads["child"] << child
    reads["tree"] << (parent + child)
  end

  def pss_kb(pid) = (pss_of(pid) if command_line(pid).match?(TITLE))
end
