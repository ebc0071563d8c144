# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# Issue 14's measurements end to end: the subject and the load on disjoint CPUs, the app's CPU time per request, an
# open loop at a fixed rate, and queueing told apart from time the app's timer misses.
class CostIntegrationTest < Minitest::Test
  include Processes

  HELLO = File.expand_path("../fixtures/apps/hello", __dir__)
  BURN_MS = 2.0 # what the hello app's /burn spends per request

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-cost-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # Read from the kernel while the run goes on, not from what mallard says it did.
  def test_split_runs_the_subject_and_wrk_on_the_disjoint_cpus_the_run_records
    out_dir = File.join(@tmp, "pinned")
    tag = "cost-#{Process.pid}-#{rand(1 << 30)}"
    pid = Process.spawn({ "MALLARD_TEST_TAG" => tag }, Gem.ruby, EXE, "soak", HELLO, "--duration", "4", "--json",
                        "--cpus", "split", "--out", out_dir, out: File::NULL, err: File::NULL)
    @spawned << pid
    subject, load = eventually(20) { allowed_cpus(tag) }
    Process.wait(pid)
    layout = JSON.parse(File.read(File.join(out_dir, "meta.json")))["cpu_layout"]

    assert layout["pinned"], layout.inspect
    assert_equal layout["subject"], subject, "Cpus_allowed_list of the subject"
    assert_equal layout["load"], load, "Cpus_allowed_list of wrk"
    assert_empty subject & load
  end

  # The default is production's parallelism: every CPU, shared, and the reports say so.
  def test_by_default_the_subject_has_every_cpu_and_a_bad_choice_is_refused_before_anything_runs
    _, err, status = mallard("soak", HELLO, "--duration", "1", "--out", File.join(@tmp, "all"))

    assert_equal 0, status.exitstatus, err
    available = Mallard::Cpus::Affinity.allowed
    assert_includes err, "CPUs: #{available.size} (#{Mallard::Cpus::Layout.format_list(available)}), shared"
    meta = JSON.parse(File.read(File.join(@tmp, "all", "meta.json")))
    refute meta["cpu_layout"]["pinned"]
    assert_equal [available, available, available.size], [*meta["cpu_layout"].values_at("subject", "load"),
                                                          meta["cpus"]]

    _, err, status = mallard("soak", HELLO, "--cpus", "0:0", "--out", File.join(@tmp, "bad"))
    assert_equal 64, status.exitstatus
    assert_includes err, "share CPU 0"
    refute Dir.exist?(File.join(@tmp, "bad"))
  end

  # The app's own cost per request is known (2 ms of CPU); mallard's figure must find it, plus the little Puma and
  # Rack add, and agree with its own total over the requests wrk counted.
  def test_cpu_time_per_request_matches_the_cost_the_app_is_known_to_have
    load = soak("--path", "/burn", "--duration", "3", "--concurrency", "4")["load"]

    assert_operator load["cpu_ms_per_request"], :>=, BURN_MS * 0.95
    assert_operator load["cpu_ms_per_request"], :<, BURN_MS * 1.5
    assert_in_delta load["cpu_s"] * 1000 / load["requests"], load["cpu_ms_per_request"], 0.001
  end

  def test_an_open_loop_holds_its_rate_and_says_so
    load = soak("--duration", "3", "--rate", "100")["load"]

    assert_equal 100.0, load["target_rate"]
    assert_in_delta 100, load["rps"], 10, "wrk's own count over its duration"
    assert_operator load["late_pct"], :<, 5
  end

  def test_an_open_loop_the_app_cannot_keep_up_with_is_no_measurement
    summary = soak("--path", "/slow", "--threads", "1", "--concurrency", "2", "--duration", "3", "--rate", "200")

    assert_operator summary.dig("load", "late_pct"), :>, 50
    assert(summary.dig("validity", "problems").any? { |problem| problem.include?("could not keep up with --rate 200") })
  end

  # 8 connections for 2 threads of a 50 ms page: Puma keeps serving the connections it holds, and the others' requests
  # wait for a thread, some for over a second. That is queueing, measured from each request's start, and no finding.
  def test_queueing_for_a_thread_is_measured_and_not_flagged
    summary = soak("--path", "/slow", "--threads", "2", "--concurrency", "8", "--duration", "3")
    app = summary["app"]

    assert_operator app.dig("queue_ms", "p99"), :>, 100, "requests waited for a free thread"
    assert_operator app.dig("outside", "server_ms"), :>=, app.dig("outside", "in_app_ms")
    assert_operator app.dig("outside", "rest_ms").abs, :<, 5, "the server's time accounts for the time outside"
    assert_empty app["flags"]
  end

  private

  def soak(*args)
    out, err, status = mallard("soak", HELLO, "--json", "--out", File.join(@tmp, "run-#{rand(1 << 30)}"), *args)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  # [subject's CPUs, wrk's CPUs] once both run, from /proc/PID/status.
  def allowed_cpus(tag)
    by_name = processes_tagged(tag).to_h { |pid| [File.read("/proc/#{pid}/comm").strip, cpus(pid)] }
    [by_name["puma"], by_name["wrk"]] if by_name["puma"] && by_name["wrk"]
  rescue SystemCallError
    nil
  end

  def cpus(pid)
    Mallard::Cpus::Layout.parse_list(File.read("/proc/#{pid}/status")[/^Cpus_allowed_list:\s*(\S+)/, 1])
  end
end
