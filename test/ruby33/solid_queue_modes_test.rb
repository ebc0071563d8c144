# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# Solid Queue's modes compared, and Solid Queue left idle, on Ruby 3.3.8 (its gems installed there by bin/rubies): the
# fixture app's bin/jobs in fork mode (a supervisor forking a dispatcher, a scheduler and a worker) against async mode
# (all of them threads of the supervisor) and puma mode (the app's Puma forking a fork-mode supervisor through Solid
# Queue's plugin), each row's tree checked from outside, at the same job load; then the same backend with no workload
# for a few seconds.
class SolidQueueModesTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/solid_queue", __dir__)
  # The titles Solid Queue's processes give themselves under Puma, up to their version.
  SOLID_QUEUE_TITLES = %w[solid-queue-dispatcher solid-queue-fork-supervisor solid-queue-scheduler
                          solid-queue-worker].freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-solid-queue-modes")
    @ruby = Rubies.path(Rubies::STOCK)
    Rubies.extensions(Rubies::STOCK) # built once, outside the runs' time limits
  end

  def teardown
    passed? ? FileUtils.remove_entry(@tmp) : warn("Solid Queue's mode runs kept in #{@tmp}")
    super
  end

  # Three short repeats a mode: fork's four processes each hold a copy of Rails that async's one process holds once.
  # Two are not enough: fork's summed PSS steps up as its processes write to the pages they shared (one pair of 6 s
  # runs here read 208 and 169 MiB, async's 89 and 90), and an interval on two runs has 1 degree of freedom, so
  # async's -52% came with an interval of -87% … +77%. Puma mode's three runs cost about 30 s more (10 s each: Rails
  # booted in Puma, then Solid Queue's fork tree under it). 4 s of jobs a run, not 6: about 24 s less of the suite,
  # which CI's 35 minutes needed.
  def test_each_modes_memory_with_its_interval_async_using_less_than_fork
    summary = run_json("compare", "--jobs", "solid_queue", "--modes", "fork,async,puma", "--allocators", "glibc",
                       "--repeat", "3", "--duration", "4", timeout: 420)
    rows = summary["rows"].to_h { |row| [row["name"], row] }

    assert_equal %w[glibc/fork glibc/async glibc/puma], rows.keys
    assert_equal(%w[fork async puma], rows.values.map { |row| row["jobs_mode"] })
    rows.each_value { |row| assert row["verified"], "#{row['name']}: #{row['failed']}" }
    # fork's supervisor and the three it forks; async's one process; Puma and fork's four under it.
    assert_equal({ "glibc/fork" => [4], "glibc/async" => [1], "glibc/puma" => [5] },
                 rows.transform_values { |row| row["runs"].map { |run| run["processes"] }.uniq })
    assert_async_uses_less(summary)
    assert_puma_hosts_the_tree(rows["glibc/puma"], summary)
  end

  # The backend with no jobs: its verdict is over time, said as the backend's own, and not called a leak.
  def test_an_idle_soak_is_judged_over_time_as_the_backends_own
    summary = run_json("soak", "--jobs", "solid_queue", "--idle", "12s", timeout: 120)
    verdict = summary["verdict"]

    assert_equal "complete", summary["status"], summary["reason"]
    assert_equal ["seconds idle", "seconds with no work (--idle)"], verdict.values_at("unit", "requests_source")
    refute_nil verdict["slope_kb_per_1k_s"]
    assert_nil verdict["slope_kb_per_1k_jobs"]
    # Not called a leak: the overall verdict grows only with the app's own memory (its live set, malloc in use). The
    # tree's memory alone may still rise in its first seconds idle, as the backend settles (a fresh-clone run: +0.54
    # MiB a second over 12 s, malloc in use rising, the live set flat, so inconclusive overall, not growing). The live
    # set is read exactly, after the agent's full GCs (soak's default): with --full-gc-every off it was read after
    # minor GCs, which count the old garbage a polling backend promotes, and 1 of 2 idle soaks called it growing.
    refute_equal "growing", verdict["overall"], verdict.inspect
  end

  private

  def run_json(*args, timeout:)
    out, err, status = mallard(*args, "--json", "--ruby", @ruby, *(args.first == "compare" ? workload : []),
                               "--out", File.join(@tmp, args.first), APP, timeout: timeout)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  def workload = ["--workload", File.join(APP, "workload.rb")]

  # Read from the run directories, not from mallard's own check: the process mallard started is Puma, listening on
  # its 127.0.0.1 port, every other process of the tree is one of Solid Queue's, and the tree's memory has Puma's
  # role first among them; its memory against fork's has an interval.
  def assert_puma_hosts_the_tree(row, summary)
    row["runs"].each do |run|
      titles = root_and_rest(run["run_dir"])
      assert_match %r{\Apuma \d[\d.]* \(tcp://127\.0\.0\.1:\d+\)}, titles.first
      assert_equal SOLID_QUEUE_TITLES, titles.last.map { |title| title[/\A[a-z-]+/] }.uniq.sort
      roles = JSON.parse(File.read(File.join(run["run_dir"], "summary.json")))["roles"].map { |role| role["role"] }
      assert_equal %w[puma supervisor dispatcher scheduler worker], roles
    end
    puma = summary["configs"].find { |config| config["name"] == "glibc/puma" }
    refute_nil puma.dig("vs_baseline", "rss_pct_ci"), "puma's memory against fork's: #{puma.inspect}"
  end

  # The root's last title, and the titles of every other process sampled (the sampler reads the root's tree).
  def root_and_rest(run_dir)
    root = JSON.parse(File.read(File.join(run_dir, "meta.json")))["subject_pid"]
    titles = File.foreach(File.join(run_dir, "samples.jsonl")).map { |line| JSON.parse(line) }
                 .select { |sample| sample["kind"] == "memory" && sample["title"] }
                 .to_h { |sample| [sample["pid"], sample["title"]] }
    [titles.delete(root), titles.values]
  end

  def assert_async_uses_less(summary)
    async = summary["configs"].find { |config| config["name"] == "glibc/async" }
    change = async.dig("vs_baseline", "rss_pct_ci")
    refute_nil change, "async's memory against fork's: #{async.inspect}"
    assert_operator change.last, :<, 0, "async uses less memory than fork: #{async['vs_baseline'].inspect}"
  end
end
