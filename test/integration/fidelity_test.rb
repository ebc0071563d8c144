# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/puma_server"
require_relative "../support/shared_runs"

# Issue 20: mallard's answer must be the app's, not the lab's. Confined to one CPU of two (the old default), a
# fragmenting app's glibc RSS fell from 379 to 202 MiB and MALLOC_ARENA_MAX=2's saving from −42% (−43.8 … −39.4)
# to −7% (−9.8 … −3.7). By default compare now runs the app as production would, and its saving must be the one the
# same app shows under plain Puma and wrk, read from /proc by this test: the two are not told apart by the repeats
# of either, their 95% intervals (the compare's own rule, Analysis::Change) overlapping. A fixed tolerance was
# wrong both ways: three runs by hand of this fixture put the saving anywhere from −7% to −30%, so 12 points failed
# runs that agreed as far as their repeats could tell, and passed nothing the intervals would not. The comparison is
# read by two tests and run once for both.
class FidelityIntegrationTest < Minitest::Test
  include Processes
  include RedisServers
  include SharedRuns

  APP = File.expand_path("../fixtures/apps/fragmenting", __dir__)
  JOBS = File.expand_path("../fixtures/jobs", __dir__)
  WORKER = %w[sidekiq -r ./jobs.rb -c 20].freeze
  WORKER_REPEATS = 3
  SECONDS = 10
  # The job worker's soak and its runs by hand: each peak read over the same seconds (6 s: 24 s less of the suite than
  # 10, its three pairs of runs timed alike all the same).
  WORKER_SECONDS = 6
  REPEATS = 3

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-fidelity-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_compare_by_default_finds_the_saving_plain_puma_shows
    summary = shared_compare
    by_hand = Hash.new { |hash, key| hash[key] = [] }
    REPEATS.times { [nil, "2"].each { |arenas| by_hand[arenas] << plain_steady_rss_kb(arenas) } }
    hand = Mallard::Analysis::Change.call(by_hand["2"], by_hand[nil])
    mallard = summary["configs"].find { |config| config["name"] == "glibc-arena2" }["vs_baseline"]

    assert_equal [false, "clean"], [summary.dig("cpu_layout", "pinned"), summary["figures_from"]],
                 "the default shares every CPU, and the counted runs carry no mallard code"
    assert_operator hand.pct, :<, -5, "the fixture fragments glibc under plain Puma: #{by_hand}"
    assert_intervals_overlap hand, mallard, by_hand
    lab = summary["configs"].find { |config| config["name"] == "glibc" }.dig("steady_rss_kb", "values")
    assert_among_runs_by_hand(by_hand[nil], lab)
  end

  # The memory ledger on the same app (issue 23's acceptance): under MALLOC_ARENA_MAX=2 fewer arenas hold less of what
  # the app freed, and the ledger puts the difference in the allocator's part. Read from the comparison's run of each
  # configuration with the agent, which reads the ledger; until 2026-11-28 the ledger test soaked this fixture under
  # each for 8 s of its own (18 s of the suite), at 8 threads where these runs have 5: still more arenas than two.
  def test_two_arenas_hold_less_freed_memory_than_glibcs_default
    summary = shared_compare
    held = %w[glibc glibc-arena2].to_h do |name|
      [name, instrumented_ledger(summary, name)["parts"].find { |part| part["name"] == "malloc held free" }["kb"]]
    end

    assert_operator held["glibc-arena2"], :<, held["glibc"], held.inspect
  end

  # A 20-thread job worker fragments glibc most of all (confined to one CPU its RSS was 82 MiB, by hand 184): its
  # RSS under mallard's soak must be what the same worker shows run by hand. In 10 s it is still growing (by ~20 MiB
  # a second), so the figure compared is the peak, both runs timed alike (WORKER_SECONDS). Its runs spread widely,
  # and not alike from one run of the suite to the next (10 s runs: by hand, peaks of 255 to 304 MiB in one, 460 to
  # 482 in another, where mallard's three were 387, 413 and 485). So the claim is the one the lab's Pumas are held to
  # (#assert_among_runs_by_hand): mallard's median within the 99% prediction interval of one more run by hand,
  # the spread pooled over both. The rule it replaces (within 90% of the lowest run by hand and 110% of the highest)
  # failed that fresh-clone run by 0.25%. By hand the worker writes its log to a file, as under mallard
  # (subject.log) and in production: Sidekiq logs two lines a job, and with its log sent to /dev/null the same worker
  # ran more jobs a second and peaked at 392 to 452 MiB.
  def test_a_20_thread_job_workers_memory_is_what_it_is_run_by_hand
    by_mallard = []
    by_hand = []
    WORKER_REPEATS.times do
      by_mallard << worker_soak.dig("memory", "peak_rss_kb")
      by_hand << plain_worker_peak_rss_kb
    end
    assert_among_runs_by_hand(by_hand, by_mallard)
  end

  private

  def assert_intervals_overlap(hand, mallard, by_hand)
    low, high = mallard["rss_pct_ci"]
    claim = format("mallard %+.1f%% (%.1f … %.1f) against plain Puma %+.1f%% (%.1f … %.1f), by hand %s",
                   mallard["rss_pct"], low, high, hand.pct, *hand.ci, by_hand)

    assert_operator low, :<=, hand.ci[1], claim
    assert_operator hand.ci[0], :<=, high, claim
  end

  # mallard's runs are the app as it runs by hand: their median within the 99% prediction interval of one more run
  # by hand (for the compare, whose counted runs carry no mallard code, the baseline's against plain Puma's). The
  # fragmenting fixture's glibc RSS goes from run to run by about 10% (by hand, 188 to 259 MiB in twelve runs, nine
  # here on 2026-11-27 and three in CI), so the interval reaches a factor of about 1.8 either way: it catches a lab
  # that halves the app's memory (confining it to one CPU took 379 MiB to 202) and nothing much smaller. The spread
  # is pooled with mallard's runs: 4 degrees of freedom. The rule this replaces (within 90% of the lowest plain run
  # and 110% of the highest) fails one run in seven at that spread, by simulation, and failed CI once (154 MiB
  # against 186 … 253).
  def assert_among_runs_by_hand(by_hand, lab)
    low, high = prediction_interval(by_hand, [by_hand, lab])
    median = median(lab)
    claim = "lab runs #{lab} (median #{median}) against by hand #{by_hand} " \
            "(one more run: #{low.round} … #{high.round} KiB)"

    assert_operator median, :>=, low, claim
    assert_operator median, :<=, high, claim
  end

  # Where one more draw of `values` falls at 99% on the log scale (RSS varies by a factor, not by a fixed amount),
  # its spread pooled over `groups`, each about its own mean.
  def prediction_interval(values, groups)
    stats = Mallard::Analysis::Statistics
    logs = ->(group) { group.map { |value| Math.log(value) } }
    dof = groups.sum { |group| group.size - 1 }
    variance = groups.sum { |group| (stats.stddev(logs[group])**2) * (group.size - 1) } / dof
    half = stats.t_quantile(dof, 0.995) * Math.sqrt(variance * (1 + (1.0 / values.size)))
    center = stats.mean(logs[values])
    [Math.exp(center - half), Math.exp(center + half)]
  end

  def worker_soak
    argv = ["soak", "--sidekiq", "--workload", File.join(JOBS, "steady.rb"), "--duration", WORKER_SECONDS.to_s,
            "--json", "--out", File.join(Dir.mktmpdir("soak", @tmp), "run"), "--redis", start_redis, JOBS, "--",
            *WORKER]
    out, err, status = mallard(*argv, env: { "JOB" => "FragmentingJob" }, timeout: 120)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  # Sidekiq and the steady workload against a Redis of their own, no mallard, the worker's log in a file: the highest
  # RSS smaps_rollup showed while the workload pushed for WORKER_SECONDS once the worker had booted (its first log
  # line), and a second after the push stopped, as mallard times its soak. Until 2026-11-29 the push ran on through
  # that second and the clock started at the spawn: in one pair of runs the worker by hand logged jobs done for 6.9 s,
  # 20,699 of them, where mallard's logged 14,592 in 5.9 s, and a fresh clone's three runs by hand peaked at 454 to
  # 458 MiB against mallard's 407 to 417.
  def plain_worker_peak_rss_kb
    env = { "REDIS_URL" => start_redis, "JOB" => "FragmentingJob", "LD_PRELOAD" => nil, "MALLOC_ARENA_MAX" => nil,
            "RUBYOPT" => nil }
    log = File.join(Dir.mktmpdir("by-hand", @tmp), "worker.log")
    worker = Process.spawn(env, *WORKER, chdir: JOBS, %i[out err] => [log, "w"])
    @spawned << worker
    wait_for(message: "the worker never logged") { File.size?(log) }
    @spawned << (push = Process.spawn(env, Gem.ruby, "steady.rb", chdir: JOBS, out: File::NULL, err: File::NULL))
    pushed = readings(worker, seconds: WORKER_SECONDS)
    stop_process(push)
    (pushed + readings(worker, seconds: 1)).max
  ensure
    @spawned.each { |pid| stop_process(pid) }
  end

  def shared_compare
    shared_run("compare") do |dir|
      out, err, status = mallard("compare", APP, "--allocators", "glibc,glibc-arena2", "--repeat", REPEATS.to_s,
                                 "--duration", SECONDS.to_s, "--threads", "5", "--concurrency", "8", "--json",
                                 "--out", dir, timeout: 300)
      assert_equal 0, status.exitstatus, err
      JSON.parse(out)
    end
  end

  # The ledger of a configuration's first run with the agent, from that run's own summary, whether it counted as a
  # measurement or not, as the ledger test read its soaks: a busy machine can spoil the run, and the comparison then
  # leaves it out of its rows and runs it again (on a shared machine one was lost so).
  def instrumented_ledger(summary, name)
    JSON.parse(File.read(File.join(summary["run_dir"], "#{name}-with-agent", "summary.json"))).fetch("ledger")
  end

  # Plain Puma on the fixture's own config.ru and plain wrk, no mallard: RSS from smaps_rollup every half second (as
  # mallard samples a 10 s load), the median after the warm-up that mallard's own rule (Analysis::Warmup) finds in
  # these readings. The same figure of the same series, so the two differ only as the lab does. glibc's RSS here
  # grows through the whole load, and the median of the second half alone (this test's rule until 2026-11-27) stood
  # above mallard's steady figures by 8–22% on average over the four sets of runs logged (by hand 303–310 MiB against
  # 179–258 in a fresh clone's run); how much of that the different windows made is not measured.
  def plain_steady_rss_kb(arena_max)
    env = { "MALLOC_ARENA_MAX" => arena_max, "LD_PRELOAD" => nil, "MALLOC_CONF" => nil, "RUBYOPT" => nil }
    server = PumaServer.new(APP, threads: "5:5", env: env).start
    wrk = Process.spawn("wrk", "-t", "2", "-c", "8", "-d", "#{SECONDS}s", "#{server.url}/", out: File::NULL)
    @spawned << wrk
    series = readings(server.pid)
    Process.wait(wrk)
    median(series.drop(Mallard::Analysis::Warmup.detect(series)))
  ensure
    server&.stop
  end

  # RSS from smaps_rollup every half second for `seconds`.
  def readings(pid, seconds: SECONDS)
    (seconds * 2).times.map do
      sleep 0.5
      File.read("/proc/#{pid}/smaps_rollup")[/^Rss:\s+(\d+)/, 1].to_f
    end
  end

  def median(values)
    Mallard::Analysis::Statistics.median(values)
  end
end
