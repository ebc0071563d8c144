# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/shared_runs"

# `mallard report` and `mallard diff` end to end, on soaks of real Puma. Soaks take seconds, so each is run
# once, the first time a test asks for it, and shared; a test that changes a run works on its own copy.
class ReportDiffIntegrationTest < Minitest::Test
  include Processes
  include RunDirectories
  include SharedRuns

  APPS = File.expand_path("../fixtures/apps", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-report-diff-case")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # Sampled every 0.2 s, as the leak test below: enough steady samples in a 4-second run for an interval.
  def test_two_soaks_of_the_same_app_show_no_significant_change_and_pass_the_gate
    before = stable_soak
    after = soak_run("stable-fine-b", "--interval", "0.2")
    out, err, status = mallard("diff", before, after, "--json")
    row = JSON.parse(out)["rows"].first

    assert_equal 0, status.exitstatus, err
    assert_equal "steady_rss_kb", row["name"]
    refute_nil row["ci"], row.inspect
    refute row["significant"], "A/A came out different: #{row.inspect}"

    out, err, status = mallard("diff", before, after, "--fail-over", "5")
    assert_equal 0, status.exitstatus, err
    assert_match(/steady_rss_kb .*(no detectable difference|not clear of ±[\d.]+% noise)/, out)
    assert_match(/passed --fail-over/, out)
  end

  # A growing series spreads its batch means, and it takes the few more batches of a finer sampling for a
  # 4-second run's interval to exclude zero.
  def test_a_leak_is_a_significant_rise_and_fails_the_gate_with_one_line
    stable = stable_soak
    leaky = soak_run("leaky-fine", "--interval", "0.2", app: "leaky")
    out, err, status = mallard("diff", stable, leaky, "--json")
    row = JSON.parse(out)["rows"].first

    assert_equal 0, status.exitstatus, err
    assert row["significant"], row.inspect
    assert row["worse"]
    assert_operator row["ci"][0], :>, 20

    out, err, status = mallard("diff", stable, leaky, "--fail-over", "5")
    assert_equal 1, status.exitstatus
    assert_equal 1, err.lines.size, err
    assert_match(/\Amallard: diff: steady RSS \+\d+\.\d% \(\+\d+\.\d … \+\d+\.\d\): worse than the 5% --fail-over/, err)
    assert_match(/significant: worse/, out)
  end

  def test_report_shows_a_soak_again_in_the_terminal_and_as_its_summary_json
    run = stable_soak
    out, err, status = mallard("report", run)

    assert_equal 0, status.exitstatus, err
    assert_match(/\Amallard soak — .*stable/, out)
    assert_match(/Memory\s+\S+ · slope|Memory\s+inconclusive/, out)
    assert_match(/Run\s+#{Regexp.escape(run)}/, out)

    out, err, status = mallard("report", run, "--json")
    assert_equal 0, status.exitstatus, err
    assert_equal JSON.parse(File.read(File.join(run, "summary.json"))), JSON.parse(out)
  end

  def test_an_interrupted_soak_is_reported
    run = File.join(@tmp, "interrupted")
    pid = Process.spawn(Gem.ruby, EXE, "soak", File.join(APPS, "stable"), "--duration", "60", "--json", "--out", run,
                        out: File::NULL, err: File::NULL)
    @spawned << pid
    wait_for { sample_count(run) >= 4 }
    Process.kill("INT", pid)
    Timeout.timeout(30) { Process.wait(pid) }

    out, err, status = mallard("report", run)
    assert_equal 0, status.exitstatus, err
    assert_match(/interrupted: mallard received SIGINT/, out)
    assert_match(/steady RSS \d+\.\d MiB/, out)
  end

  def test_a_soak_whose_summary_was_lost_is_summarised_from_its_raw_files
    original = stable_soak
    run = File.join(@tmp, "no-summary")
    FileUtils.cp_r(original, run)
    File.delete(File.join(run, "summary.json"))

    out, err, status = mallard("report", run, "--json")
    assert_equal 0, status.exitstatus, err
    assert_match(/no summary\.json; summarised from its raw files/, err)
    stored = JSON.parse(File.read(File.join(original, "summary.json")))
    assert_equal stored.merge("run_dir" => File.realpath(run)), JSON.parse(out)

    out, _err, status = mallard("report", run)
    assert_equal 0, status.exitstatus
    assert_match(/steady RSS/, out)
  end

  def test_a_missing_run_directory_is_not_found_in_one_line
    _out, err, status = mallard("report", File.join(@tmp, "nope"))

    assert_equal 66, status.exitstatus
    assert_equal ["mallard: no run directory at #{File.join(@tmp, 'nope')}\n"], err.lines
  end

  private

  # A soak of a fixture app, 4 seconds of load, run once per name for the whole class.
  def soak_run(name, *args, app: "stable")
    shared_run(name) do |run|
      _out, err, status = mallard("soak", File.join(APPS, app), "--duration", "4", "--json", "--out", run, *args)
      assert_equal 0, status.exitstatus, err
      run
    end
  end

  # The stable app's soak that the diffs start from, and the one the report tests show again (a report reads any
  # soak alike, so they need no soak of their own).
  def stable_soak = soak_run("stable-fine", "--interval", "0.2")
end
