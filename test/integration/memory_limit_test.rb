# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# --memory-limit on a real app, watched (here no cgroup may be created, so none enforces it): under the boot-heavy
# fixture's memory the run ends as a failed measurement saying where the limit was crossed, with nothing of the app
# left running; above it the run completes with the limit's headroom and the subject's cgroup in its JSON.
class MemoryLimitTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/boot_heavy", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-memory-limit-test")
    @tag = new_tag("memory-limit")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_a_limit_under_the_app_s_memory_ends_the_run_failed_with_where_it_was_crossed
    summary, status, err = soak("64M", duration: 20)
    limit = summary["memory_limit"]

    assert_equal 65, status.exitstatus, err
    assert_equal %w[failed memory_limit], summary.values_at("status", "cause")
    assert_nil summary["verdict"]
    assert_equal [64 * 1024, "pss_kb", false], limit.values_at("limit_kb", "held", "enforced")
    assert_operator limit["crossed_load_s"], :<, 10, "stopped at the first tick over it, not at the load's end"
    assert_operator summary.dig("load", "duration_s").to_f, :<, 15
    assert_reason_says_when_and_how_much(summary["reason"], limit)
    wait_for(message: "the app outlived its run") { processes_left_by_mallard(@tag).empty? }
    out, = mallard("report", File.join(@tmp, "64M"))
    assert_match(/crossed --memory-limit 64\.0 MiB at [\d.]+ s .*watched, not enforced/, out)
  end

  def test_a_limit_above_the_app_s_memory_completes_with_its_headroom_and_the_cgroup
    summary, status, err = soak("2G", duration: 3)
    limit = summary["memory_limit"]
    container = summary["container"]

    assert_equal 0, status.exitstatus, err
    assert_equal "complete", summary["status"]
    assert_nil limit["crossed_t"]
    assert_equal limit["limit_kb"] - limit["peak_kb"], limit["headroom_kb"]
    assert_operator limit["peak_kb"], :>, 64 * 1024, "the boot-heavy app holds more than 64 MiB"
    skip "the subject sat in no readable memory cgroup" unless container

    assert_operator container["peak_kb"], :>=, container["steady_kb"]
    assert_operator container["processes"], :>=, container["tree_processes"]
    assert_operator container["tree_processes"], :>=, 1
    assert_includes File.read("/proc/self/cgroup"), container["path"], "the cgroup mallard's own children sit in"
  end

  private

  # A comparison's failed row shows its run's reason: it says when and by how much too.
  def assert_reason_says_when_and_how_much(reason, limit)
    assert_equal limit["crossed_kb"] - limit["limit_kb"], limit["over_kb"]
    assert_operator limit["over_kb"], :>, 0
    assert reason.start_with?("the subject's tree crossed --memory-limit 64M at " \
                              "#{format('%.1f', limit['crossed_t'])} s: its summed PSS"), reason
    assert_includes reason, format("%.1f MiB over", limit["over_kb"] / 1024.0)
  end

  def soak(limit, duration:)
    out_dir = File.join(@tmp, limit)
    out, err, status = mallard("soak", APP, "--memory-limit", limit, "--duration", duration, "--interval", "0.25",
                               "--json", "--out", out_dir, env: { "MALLARD_TEST_TAG" => @tag }, timeout: 120)
    [JSON.parse(out), status, err]
  end
end
