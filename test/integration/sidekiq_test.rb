# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# Job workers end to end: a real redis-server, a real Sidekiq worker running real jobs, the real agent and a real
# workload pushing jobs through Sidekiq's own client.
class SidekiqIntegrationTest < Minitest::Test
  include Processes
  include RunDirectories
  include RedisServers

  JOBS = File.expand_path("../fixtures/jobs", __dir__)
  # LeakyJob's 10,000-byte string, in KiB per 1,000 jobs.
  KEPT_KB_PER_1K = 10_000 * 1000 / 1024.0
  WORKER = ["--", "sidekiq", "-r", "./jobs.rb", "-c", "5"].freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-sidekiq-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # Sidekiq adds its in-memory counts to stat:processed at exit: once the worker is gone, Redis holds its own
  # exact count, an independent reading of what the agent counted.
  def test_every_job_is_counted_as_sidekiq_itself_counts_them
    url = start_redis
    redis_call(url, "SET", "not:mallards", "kept")
    summary, status, err = soak("steady.rb", "--redis", url, "--duration", "5")

    assert_equal 0, status.exitstatus, err
    jobs = summary["jobs"]
    assert_operator jobs["processed"], :>, 100
    assert_equal Integer(redis_call(url, "GET", "stat:processed")), jobs["processed"]
    assert_equal 0, jobs["failed"]
    assert_operator jobs["per_s"], :>, 10
    assert_operator jobs.dig("queue_latency_ms", "p99"), :>=, jobs.dig("queue_latency_ms", "p50")
    assert jobs["drained"], jobs.inspect
    assert_equal "kept", redis_call(url, "GET", "not:mallards"), "mallard touched a key it did not create"
    assert_job_keys(summary)
  end

  # Three classes in a random mix, one keeping 10 KB a job: that one is named growing, at about what it keeps (its
  # anonymous RSS carries glibc's overhead too: +12,262 to +12,561 KiB per 1,000 jobs in five runs by hand), the others
  # not; per class the jobs add up to what Sidekiq itself counted. The ledger is read every second, for readings
  # enough in a short run.
  def test_the_job_class_that_keeps_memory_is_named
    url = start_redis
    summary, status, err = soak("mixed.rb", "--redis", url, "--duration", "24",
                                env: { "MALLARD_LEDGER_INTERVAL" => "1" })

    assert_equal 0, status.exitstatus, err
    classes = summary["job_classes"].to_h { |part| [part["job_class"], part] }
    assert_equal %w[ChurnJob LeakyJob SmallJob], classes.keys.sort
    assert_named_at_what_it_keeps(classes["LeakyJob"], classes.values)
    %w[ChurnJob SmallJob].each { |name| refute_equal "growing", classes.dig(name, "judgement"), classes[name].inspect }
    jobs = classes.values.sum { |part| part["jobs"] }
    assert_equal [Integer(redis_call(url, "GET", "stat:processed"))] * 2, [jobs, summary.dig("jobs", "processed")]
  end

  # Sidekiq 7 from RubyGems (bin/setup --test installs it into tmp/gems/sidekiq7): its own configuration object,
  # capsules and redis-client, the same middleware hook and keys. Only the worker sees those gems (mallard's own
  # bundle must not); the workload pushes with the system's Sidekiq 6.4 client, whose jobs Sidekiq 7 runs.
  def test_sidekiq_7_is_measured_the_same_way
    gems = File.expand_path("../../tmp/gems/sidekiq7", __dir__)
    skip "Sidekiq 7 is not installed in #{gems} (bin/setup --test)" unless File.directory?(File.join(gems, "gems"))

    worker = ["--", "env", "GEM_HOME=#{gems}", "GEM_PATH=#{gems}", File.join(gems, "bin", "sidekiq"), *WORKER.drop(2)]
    summary, status, err = soak("steady.rb", "--duration", "3", worker: worker)

    assert_equal 0, status.exitstatus, err
    assert_match(/Sidekiq 7\./, File.read(File.join(@tmp, "run", "subject.log")))
    assert_operator summary.dig("jobs", "processed"), :>, 100
  end

  # A job worker's work is jobs: diff compares its jobs/s, each job's wait in the queue and the CPU per job, read
  # from each run's own summary, never the load tool's request figures (it has none).
  def test_a_diff_of_two_job_worker_soaks_compares_their_jobs
    url = start_redis
    a, b = %w[a b].map do |name|
      summary, status, err = soak("steady.rb", "--redis", url, "--duration", "3", out: name)
      assert_equal 0, status.exitstatus, err
      summary
    end
    { "rps" => %w[per_s], "p99_ms" => %w[queue_latency_ms p99], "cpu_ms_per_request" => %w[cpu_ms_per_job] }
      .each { |metric, figure| assert_diffs_jobs(metric, a, b, figure) }
    out, = mallard("diff", File.join(@tmp, "a"), File.join(@tmp, "b"), "--metric", "rps")
    assert_match(%r{\Amallard diff — jobs/s, B against A}, out)
    assert_match(%r{\d jobs/s}, out)
  end

  def test_jobs_that_mostly_fail_are_a_failed_measurement
    summary, status, = soak("failing_jobs.rb", "--duration", "3")

    assert_equal 65, status.exitstatus
    assert_equal "failed", summary["status"]
    assert_match(/of jobs failed/, summary["reason"])
    assert_nil summary["verdict"]
  end

  def test_a_worker_that_cannot_boot_shows_its_last_lines
    _, err, status = mallard("soak", "--sidekiq", "--workload", File.join(JOBS, "steady.rb"), "--boot-timeout", "20",
                             "--out", File.join(@tmp, "run"), JOBS, "--", "sidekiq", "-r", "./no_such_file.rb")

    assert_equal 69, status.exitstatus, err
    assert_match(%r{sidekiq -r \./no_such_file\.rb}, err)
    assert_match(/last lines of its output/, err)
  end

  def test_a_failing_workload_ends_the_run_with_its_error_and_leaves_nothing
    tag = new_tag("sidekiq-workload")
    summary, status, = soak("broken_workload.rb", "--duration", "10", env: { "MALLARD_TEST_TAG" => tag })

    assert_equal 69, status.exitstatus
    assert_equal "interrupted", summary["status"]
    assert_match(/the workload .*broken_workload\.rb failed \(exit status 1\).*ReportJobb/m, summary["reason"])
    assert_nothing_left(tag)
  end

  def test_redis_dying_mid_run_interrupts_it_and_keeps_every_sample
    tag = new_tag("sidekiq-redis")
    out_dir = File.join(@tmp, "run")
    pid = Process.spawn({ "MALLARD_TEST_TAG" => tag }, Gem.ruby, EXE, "soak", "--sidekiq", "--workload",
                        File.join(JOBS, "steady.rb"), "--duration", "30", "--out", out_dir, JOBS, *WORKER,
                        out: File::NULL, err: File::NULL)
    wait_for { sample_count(out_dir) >= 6 }
    # redis-server rewrites its argv and environment area for its process title: it is found as mallard's child.
    redis = children_of(pid).find { |child| command_lines([child]).include?("redis-server") }
    Process.kill("KILL", redis)
    _, status = Timeout.timeout(40) { Process.wait2(pid) }
    summary = JSON.parse(File.read(File.join(out_dir, "summary.json")))

    assert_equal 69, status.exitstatus
    assert_equal "interrupted", summary["status"]
    assert_match(/Redis at .* did not answer/, summary["reason"])
    assert_operator summary.dig("memory", "samples"), :>=, 6
    assert_nothing_left(tag)
  end

  def test_mallards_own_redis_ends_with_the_run
    out_dir = File.join(@tmp, "run")
    pid = Process.spawn(Gem.ruby, EXE, "soak", "--sidekiq", "--workload", File.join(JOBS, "steady.rb"), "--duration",
                        "30", "--out", out_dir, JOBS, *WORKER, out: File::NULL, err: File::NULL)
    wait_for { sample_count(out_dir) >= 2 }
    redis = children_of(pid).find { |child| command_lines([child]).include?("redis-server") }
    Process.kill("INT", pid)
    _, status = Timeout.timeout(40) { Process.wait2(pid) }

    assert_equal 130, status.exitstatus
    assert eventually(5) {
             !File.exist?("/proc/#{redis}") || zombie?("/proc/#{redis}")
           }, "redis-server survived the run"
  end

  def test_a_comparison_of_job_workers_counts_jobs
    out, err, status = mallard("compare", "--sidekiq", "--workload", File.join(JOBS, "steady.rb"), "--allocators",
                               "glibc,glibc-arena2", "--repeat", "1", "--duration", "3", "--json",
                               "--out", File.join(@tmp, "compare"), JOBS, *WORKER)
    summary = JSON.parse(out)

    assert_equal 0, status.exitstatus, err
    assert_equal %w[sidekiq instrumented], [summary.dig("target", "kind"), summary["figures_from"]]
    assert_nil summary["agent_cost"], "every run carried the agent: no pair to set apart"
    summary["configs"].each { |config| assert_operator config.dig("rps", "median"), :>, 10, config.inspect }
    report = mallard("report", File.join(@tmp, "compare")).first

    assert_match(%r{jobs/s}, report)
    assert_match(/every run here carried the agent/, report)
  end

  def test_bad_job_worker_options_are_refused_before_anything_starts
    workload = File.join(JOBS, "steady.rb")
    {
      [] => [64, /--sidekiq needs --workload/],
      ["--workload", workload, "--redis", "redis://10.1.2.3:6379/0"] => [64, /only a Redis on 127\.0\.0\.1/],
      ["--workload", workload, "--workers", "2"] => [64, /--workers applies to a web server/],
      ["--workload", workload, "--threads", "4"] => [64, /pass -c in CMD/],
      ["--workload", File.join(JOBS, "nope.rb")] => [66, /no workload at/]
    }.each do |args, (code, message)|
      _, err, status = mallard("soak", "--sidekiq", *args, "--out", File.join(@tmp, "refused"), JOBS, *WORKER)
      assert_equal code, status.exitstatus, [args, err].inspect
      assert_match message, err
      refute File.exist?(File.join(@tmp, "refused")), "a refused run left a run directory"
    end
  end

  def test_without_redis_server_mallard_names_the_package
    _, err, status = mallard("soak", "--sidekiq", "--workload", File.join(JOBS, "steady.rb"), JOBS, *WORKER,
                             env: { "PATH" => @tmp })

    assert_equal 66, status.exitstatus, err
    assert_match(/apt-get install redis-server/, err)
  end

  private

  def soak(workload, *args, env: {}, worker: WORKER, out: "run")
    out_dir = File.join(@tmp, out)
    out, err, status = mallard("soak", "--sidekiq", "--workload", File.join(JOBS, workload), "--json",
                               "--out", out_dir, *args, JOBS, *worker, env: env)
    [JSON.parse(out), status, err]
  end

  def assert_named_at_what_it_keeps(leaky, all)
    low, high = leaky["growth_kb_per_1k_jobs_ci"]

    assert_equal "growing", leaky["judgement"], all.inspect
    assert_operator high, :>=, KEPT_KB_PER_1K, "at least the 10,000 bytes each job keeps: #{leaky}"
    assert_operator low, :<=, 2 * KEPT_KB_PER_1K, "and not twice them: #{leaky}"
  end

  def assert_diffs_jobs(metric, before, after, figure)
    out, err, status = mallard("diff", File.join(@tmp, "a"), File.join(@tmp, "b"), "--metric", metric, "--json")
    assert_equal 0, status.exitstatus, err
    diff = JSON.parse(out)
    row = diff["rows"].first

    assert_equal "jobs", diff["unit"]
    refute_nil before.dig("jobs", *figure), figure.inspect
    assert_equal [before.dig("jobs", *figure), after.dig("jobs", *figure)], [row["a"], row["b"]], metric
  end

  def assert_nothing_left(tag)
    assert eventually(5) { processes_tagged(tag).empty? }, -> { "left: #{command_lines(processes_tagged(tag))}" }
  end

  def assert_job_keys(summary)
    %w[processed failed per_s].each { |key| assert summary["jobs"].key?(key), key }
    jobs = summary["jobs"]
    assert_in_delta jobs["cpu_s"] * 1000 / jobs["processed"], jobs["cpu_ms_per_job"], 0.001, "the worker's CPU per job"
    %w[p50 p99].each { |key| refute_nil summary.dig("jobs", "queue_latency_ms", key) }
    refute_nil summary.dig("verdict", "memory")
    assert summary["verdict"].key?("slope_kb_per_1k_jobs")
    refute_nil summary.dig("memory", "steady_rss_kb")
    refute_nil summary.dig("memory", "steady_pss_kb")
  end
end
