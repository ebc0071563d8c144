# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# How runs end, on real processes: signals (one, or two in quick succession), a comparison stopped part-way,
# a run whose requests all failed, a subject that never came up, a mallard killed outright — each keeps what
# was measured, says how it ended, and shows the same figures in the terminal, --json and --html.
class RunOutcomesTest < Minitest::Test
  include Processes
  include RunDirectories

  APPS = File.expand_path("../fixtures/apps", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-outcomes-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_a_second_sigint_does_not_abort_writing_what_was_measured
    pid, out_dir = start("soak", File.join(APPS, "hello"), "--duration", "60", "--interval", "0.2")
    wait_for { sample_count(out_dir) >= 5 }
    Process.kill("INT", pid)
    sleep 0.05
    Process.kill("INT", pid)
    _, status = Timeout.timeout(30) { Process.wait2(pid) }
    summary = JSON.parse(File.read(File.join(out_dir, "summary.json")))

    assert_equal 130, status.exitstatus
    assert_equal %w[interrupted signal], summary.values_at("status", "cause")
    assert_operator summary.dig("load", "requests"), :>, 0, "the load figures were kept"
    assert_agrees_in_every_view(out_dir, summary)
  end

  def test_sigterm_stops_a_comparison_and_keeps_its_finished_runs
    pid, out_dir = start("compare", File.join(APPS, "hello"), "--allocators", "glibc,glibc-arena2", "--repeat", "3",
                         "--duration", "3", "--interval", "0.2")
    wait_for(timeout: 60) { Dir.exist?(File.join(out_dir, "glibc-arena2-1")) }
    Process.kill("TERM", pid)
    _, status = Timeout.timeout(30) { Process.wait2(pid) }
    summary = JSON.parse(File.read(File.join(out_dir, "summary.json")))

    assert_equal 130, status.exitstatus
    assert_equal %w[interrupted signal], summary.values_at("status", "cause")
    assert_equal 1, summary["configs"].first["repeats"], "the finished glibc run is kept"
    refute Dir.exist?(File.join(out_dir, "glibc-2")), "no run started after the signal"
    out, = mallard("report", out_dir)
    assert_match(/interrupted: mallard received SIGTERM/, out)
  end

  def test_a_run_whose_requests_all_fail_is_a_failed_measurement_without_a_verdict
    out_dir = File.join(@tmp, "failing")
    out, err, status = mallard("soak", File.join(APPS, "hello"), "--path", "/missing", "--duration", "2",
                               "--json", "--out", out_dir)
    summary = JSON.parse(out)

    assert_equal 65, status.exitstatus, err
    assert_equal %w[failed errors], summary.values_at("status", "cause")
    assert_nil summary["verdict"]
    _, diff_err, diff_status = mallard("diff", out_dir, out_dir, "--fail-over", "5")
    assert_equal 65, diff_status.exitstatus, "a failed measurement never passes --fail-over"
    assert_match(/failed measurement/, diff_err)
  end

  def test_a_boot_failure_is_recorded_in_meta_and_reported
    out_dir = File.join(@tmp, "broken")
    _, _, status = mallard("soak", File.join(APPS, "broken"), "--out", out_dir)
    meta = JSON.parse(File.read(File.join(out_dir, "meta.json")))

    assert_equal 69, status.exitstatus
    assert_equal %w[failed boot_failed], meta.dig("phases", "outcome").values_at("status", "cause")
    _, err, = mallard("report", out_dir)
    assert_match(/failed: .*before it was up/, err)
    refute_match(/never finished/, err)
  end

  def test_a_soak_whose_mallard_was_killed_reports_the_same_in_every_view
    tag = "outcomes-kill-#{Process.pid}-#{rand(1 << 30)}"
    pid, out_dir = start("soak", File.join(APPS, "hello"), "--duration", "60", "--interval", "0.2",
                         env: { "MALLARD_TEST_TAG" => tag })
    wait_for { sample_count(out_dir) >= 12 }
    Process.kill("KILL", pid)
    Process.wait(pid)
    wait_for(timeout: 10) { processes_tagged(tag).empty? }
    summary = JSON.parse(mallard("report", out_dir, "--json").first)

    assert_equal "running", summary["status"], "a run that never said how it ended"
    assert_agrees_in_every_view(out_dir, summary)
  ensure
    processes_tagged(tag).each { |leftover| stop_process(leftover) }
  end

  private

  def start(command, *args, env: {})
    out_dir = File.join(@tmp, "live")
    pid = Process.spawn(env, Gem.ruby, EXE, command, *args, "--json", "--out", out_dir,
                        out: File::NULL, err: File::NULL)
    @spawned << pid
    [pid, out_dir]
  end

  # The terminal and HTML views show the status, verdict and steady memory that --json has.
  def assert_agrees_in_every_view(out_dir, summary)
    json = JSON.parse(mallard("report", out_dir, "--json").first)
    terminal, = mallard("report", out_dir)
    html_file = File.join(@tmp, "report.html")
    mallard("report", out_dir, "--html", html_file)
    html = File.read(html_file)

    assert_equal summary.values_at("status", "reason"), json.values_at("status", "reason")
    assert_equal summary["verdict"], json["verdict"]
    steady = format("%.1f MiB", json.dig("memory", "steady_rss_kb") / 1024.0)
    [terminal, html].each do |view|
      assert_includes view, steady
      assert_includes view, json.dig("verdict", "memory") if json["verdict"]
    end
  end
end
