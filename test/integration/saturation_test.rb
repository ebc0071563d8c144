# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rails_app"

# Issue 20: a real Rails app at 10 connections on 5 threads, confined to one CPU, was flagged for 123 ms "spent where
# the app's own timer cannot see it … the server and the network": five busy threads waiting for one core, not
# hidden work. A saturated app is not flagged for that wait; a body written line by line still is.
class SaturationIntegrationTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  ENV_FOR_RAILS = { "SECRET_KEY_BASE" => "x" * 64, "RAILS_ENV" => "production" }.freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-saturation-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_a_rails_app_saturating_its_one_cpu_is_not_flagged_for_hidden_work
    summary = soak(rails_app, "--path", "/rows", "--threads", "5", "--concurrency", "10", env: ENV_FOR_RAILS)
    cores = summary.dig("load", "cpu_s") / summary.dig("load", "duration_s")

    assert_operator cores, :>, 0.85, "the app kept its one CPU busy"
    outside = summary.dig("app", "outside")
    assert_operator outside["external_ms"], :>, outside["server_ms"], "time outside the app's timer was there"
    assert_empty summary.dig("app", "flags"), "waiting for the CPU is not hidden work"
  end

  def test_a_body_written_line_by_line_is_flagged_on_a_saturated_cpu_too
    summary = soak(File.join(APPS, "chunky"), "--path", "/lines", "--threads", "5", "--concurrency", "10")

    assert(summary.dig("app", "flags").any? { |flag| flag.include?("written in 300 chunks") }, summary["app"].inspect)
  end

  private

  # On one CPU of the machine's (the load on the others): the app saturates it.
  def soak(app, *args, env: {})
    out, err, status = mallard("soak", app, "--cpus", "1", "--duration", "8", "--json",
                               "--out", File.join(@tmp, "run-#{rand(1 << 30)}"), *args, env: env, timeout: 120)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  def rails_app = RailsApp.with_rows_page(@tmp)
end
