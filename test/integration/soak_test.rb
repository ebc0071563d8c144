# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/shared_runs"

# `mallard soak` end to end: the real executable, real Puma, real wrk, real /proc. The leaky app's soak is read by
# two tests and run once for both.
class SoakIntegrationTest < Minitest::Test
  include Processes
  include RunDirectories
  include SharedRuns

  APPS = File.expand_path("../fixtures/apps", __dir__)
  SCRIPTS = File.expand_path("../fixtures/scripts", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-soak-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_an_app_that_retains_memory_per_request_is_growing
    summary, status = leaky_soak

    assert_equal 0, status.exitstatus
    assert_equal "growing", summary.dig("verdict", "memory")
    low, high = summary.dig("verdict", "ci")
    # 8 KB kept per request: at least 8,000 KB per 1k requests, plus the array slot and malloc overhead
    assert_operator low, :>, 6000
    assert_operator high, :<, 20_000
    assert_operator summary.dig("load", "requests"), :>, 1000
    assert_equal 0, summary.dig("load", "errors")
  end

  # One Puma thread. With five, glibc gives each thread an arena whose high-water mark creeps up for tens of
  # seconds (about 1 MB over 20 s here, agent or no agent): real growth, which at times makes a 20-second
  # verdict honestly "inconclusive". One arena settles within the warm-up. This also guards the agent: its
  # per-interval garbage, promoted and left for a major GC, once made this very run "growing" (1.5 MB in 20 s).
  def test_an_app_that_allocates_but_keeps_nothing_plateaus
    summary, status = soak("stable", "--duration", "20", "--threads", "1")

    assert_equal 0, status.exitstatus
    assert_equal "plateaued", summary.dig("verdict", "memory"), summary["verdict"].inspect
  end

  def test_summary_has_the_documented_keys_and_agrees_with_its_samples
    summary, = leaky_soak
    totals = samples(summary).select { |s| s["kind"] == "total" }

    %w[verdict.memory verdict.slope_kb_per_1k_requests verdict.ci memory.steady_rss_kb memory.peak_rss_kb
       load.requests load.rps load.latency_ms.p50 load.latency_ms.p99 load.errors app.in_app_ms.p50
       app.chunks_per_response.p50 run_dir].each { |key| refute_nil summary.dig(*key.split(".")), key }
    assert_equal totals.map { |s| s["rss_kb"] }.max, summary.dig("memory", "peak_rss_kb")
    assert_in_delta summary.dig("load", "requests") / summary.dig("load", "duration_s"), summary.dig("load", "rps"), 1
  end

  def test_a_body_yielded_line_by_line_is_flagged
    html = File.join(@tmp, "chunky.html")
    summary, = soak("chunky", "--duration", "3", "--path", "/lines", "--html", html)

    assert_includes File.read(html), "<svg", "--html writes the report once the run is done"
    assert_equal 300, summary.dig("app", "chunks_per_response", "p50")
    assert(summary.dig("app", "flags").any? { |flag| flag.include?("300 chunks") })
    assert_operator summary.dig("load", "latency_ms", "p50"), :>, summary.dig("app", "in_app_ms", "p50")
  end

  # The default run directory is relative to where mallard runs, while Puma runs in the app.
  def test_without_out_the_run_goes_under_the_working_directory
    out, err, status = mallard("soak", File.join(APPS, "stable"), "--duration", "2", "--json", chdir: @tmp)
    run_dir = JSON.parse(out)["run_dir"]

    assert_equal 0, status.exitstatus, err
    assert run_dir.start_with?(File.join(File.realpath(@tmp), ".mallard", "runs")), run_dir
    assert_operator File.foreach(File.join(run_dir, "samples.jsonl")).count, :>, 2
  end

  # Any server command: {port} filled in, loaded at --url; without the rackup the middleware is
  # absent, so requests are estimated from wrk's rate and the summary says so.
  def test_a_server_command_with_a_url
    config_ru = File.join(APPS, "hello", "config.ru")
    out, err, status = mallard("soak", "--url", "http://127.0.0.1:{port}/", "--duration", "3", "--json",
                               "--out", File.join(@tmp, "command"), "--",
                               "puma", "--bind", "tcp://127.0.0.1:{port}", "--threads", "2:2", config_ru)
    summary = JSON.parse(out)

    assert_equal 0, status.exitstatus, err
    assert_operator summary.dig("load", "requests"), :>, 100
    assert_equal 0, summary.dig("load", "errors")
    assert_match(%r{\Ahttp://127\.0\.0\.1:\d+/\z}, summary.dig("target", "url"))
    assert_equal "estimated from the load tool's average rate", summary.dig("verdict", "requests_source")
    assert_operator summary.dig("gc", "count"), :>=, 0, "the agent still records GC through RUBYOPT"
  end

  def test_a_port_already_in_use_is_refused_rather_than_measured
    busy = TCPServer.new("127.0.0.1", 0)
    port = busy.addr[1]
    reply = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"
    answering = Thread.new { loop { busy.accept.tap { |client| client.write(reply) }.close } }
    _out, err, status = mallard("soak", "--url", "http://127.0.0.1:#{port}/", "--duration", "2",
                                "--out", File.join(@tmp, "busy"), "--", "puma", "--bind", "tcp://127.0.0.1:#{port}",
                                File.join(APPS, "hello", "config.ru"))

    assert_equal 64, status.exitstatus
    assert_match(%r{\Amallard: port in use: something already answers at http://127\.0\.0\.1:#{port}/}, err)
    refute File.exist?(File.join(@tmp, "busy")), "a refused run leaves no run directory"
  ensure
    answering&.kill
    busy&.close
  end

  def test_the_built_in_client_says_that_it_is_the_one_measuring
    out_dir = File.join(@tmp, "ruby-client")
    out, err, status = mallard("soak", File.join(APPS, "stable"), "--ruby-client", "--duration", "3",
                               "--concurrency", "4", "--out", out_dir)
    load = JSON.parse(File.read(File.join(out_dir, "summary.json")))["load"]

    assert_equal 0, status.exitstatus, err
    assert_match(/load from mallard's built-in client/, err)
    assert_match(/shares the CPU/, err)
    assert_match(/Load\s+ruby · \d+ requests/, out)
    assert_equal "ruby", load["tool"]
    assert_operator load["requests"], :>, 100
  end

  def test_a_growing_cache_script_shows_in_peak_memory_gc_time_and_live_slots
    cached, = soak_script("growing_cache.rb")
    plain, = soak_script("no_cache.rb")

    assert_operator cached.dig("script", "peak_rss_kb"), :>, 3 * plain.dig("script", "peak_rss_kb")
    assert_operator cached.dig("gc", "time_ms"), :>, plain.dig("gc", "time_ms")
    assert_operator cached.dig("gc", "heap_live_slots", "end"), :>, 10 * plain.dig("gc", "heap_live_slots", "end")
    assert_equal 0, cached.dig("script", "exit_status")
  end

  def test_sampled_rss_agrees_with_proc_status_read_independently
    pid, out_dir = start_soak("stable", "--duration", "6", "--interval", "0.2")
    subject = wait_for { subject_pid(out_dir) }
    wait_for { sample_count(out_dir) >= 5 }
    independent = Integer(File.read("/proc/#{subject}/status")[/VmRSS:\s+(\d+)/, 1])
    seen_before = sample_count(out_dir)
    wait_for { sample_count(out_dir) > seen_before }
    nearby = rss_samples(out_dir, subject).last(2)
    Process.wait(pid)

    assert_operator independent, :>=, nearby.min * 0.95
    assert_operator independent, :<=, nearby.max * 1.05
  end

  def test_sigint_keeps_the_samples_writes_an_interrupted_summary_and_leaves_no_process
    tag = "soak-sigint-#{Process.pid}-#{rand(1 << 30)}"
    pid, out_dir = start_soak("stable", "--duration", "60", env: { "MALLARD_TEST_TAG" => tag })
    wait_for { sample_count(out_dir) >= 4 }
    subject = subject_pid(out_dir)
    Process.kill("INT", pid)
    _, status = Timeout.timeout(30) { Process.wait2(pid) }
    summary = JSON.parse(File.read(File.join(out_dir, "summary.json")))

    assert_equal 130, status.exitstatus
    assert_equal "interrupted", summary["status"]
    assert_match(/SIGINT/, summary["reason"])
    assert_operator sample_count(out_dir), :>=, 4
    assert_nothing_left(subject, tag)
  end

  def test_an_app_that_dies_mid_run_ends_the_soak_with_what_was_measured
    summary, status = soak("crashing", "--duration", "20")

    assert_equal 69, status.exitstatus
    assert_equal "interrupted", summary["status"]
    assert_match(/the subject exited mid-run/, summary["reason"])
    assert_operator summary.dig("memory", "samples"), :>=, 1
  end

  def test_a_config_ru_that_raises_is_reported_with_its_output
    _out, err, status = mallard("soak", File.join(APPS, "broken"), "--out", File.join(@tmp, "run"))

    assert_equal 69, status.exitstatus
    assert_match(/exited \(exit status 1\) before it was up/, err)
    assert_match(/database\.yml is missing/, err)
  end

  private

  # mallard's own stop ended the subject, wrk and Puma; the lifeline watchdog then leaves too.
  def assert_nothing_left(subject, tag)
    assert_empty processes_in_group(subject), "the subject's processes survived"
    assert_empty processes_left_by_mallard(tag), "a process started by mallard (wrk, Puma) survived its stop"
    assert eventually(5) { processes_tagged(tag).empty? }, -> { "left: #{command_lines(processes_tagged(tag))}" }
  end

  def soak(app, *args, out_dir: File.join(@tmp, "run"))
    out, err, status = mallard("soak", File.join(APPS, app), "--json", "--out", out_dir, *args)
    assert_includes [0, 69], status.exitstatus, err
    [JSON.parse(out, freeze: true), status]
  end

  # 6 s of the leaky app's load, shared: the tests that read it only read it.
  def leaky_soak
    shared_run("leaky") { |out_dir| soak("leaky", "--duration", "6", out_dir: out_dir) }
  end

  def soak_script(name)
    out_dir = File.join(@tmp, name)
    out, err, status = mallard("soak", "--script", File.join(SCRIPTS, name), "--interval", "0.1", "--json",
                               "--out", out_dir)
    assert_equal 0, status.exitstatus, err
    [JSON.parse(out), status]
  end

  def start_soak(app, *args, env: {})
    out_dir = File.join(@tmp, "live")
    pid = Process.spawn(env, Gem.ruby, EXE, "soak", File.join(APPS, app), "--json", "--out", out_dir, *args,
                        out: File::NULL, err: File::NULL)
    @spawned << pid
    [pid, out_dir]
  end

  def samples(summary)
    File.readlines(File.join(summary["run_dir"], "samples.jsonl")).map { |line| JSON.parse(line) }
  end

  def rss_samples(out_dir, pid)
    File.foreach(File.join(out_dir, "samples.jsonl")).map { |line| JSON.parse(line) }
        .select { |s| s["kind"] == "memory" && s["pid"] == pid }.map { |s| s["rss_kb"] }
  end
end
