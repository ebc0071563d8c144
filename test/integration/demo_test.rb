# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# `mallard demo` end to end: compare on the bundled app, with the demo's settings and the user's winning over them.
class DemoIntegrationTest < Minitest::Test
  include Processes

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-demo-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # Shortened by options that win over the demo's own (one repeat of 2 s, no rounds added past a 1 s budget).
  def test_the_demo_compares_on_its_bundled_app
    out, err, status = mallard("demo", "--allocators", "glibc,glibc-arena2", "--repeat", "1", "--duration", "2",
                               "--budget", "1s", "--json", "--out", File.join(@tmp, "run"), timeout: 180)
    summary = JSON.parse(out)

    assert_equal 0, status.exitstatus, err
    assert_equal "complete", summary["status"]
    assert_includes summary.dig("target", "description"), "examples/demo"
    assert_equal(%w[glibc glibc-arena2], summary["rows"].map { |row| row["name"] })
    assert_match(/Puma, 8 threads/, summary.dig("target", "description"))
  end

  def test_a_target_given_to_the_demo_is_refused
    _, err, status = mallard("demo", File.expand_path("../fixtures/apps/stable", __dir__), "--out",
                             File.join(@tmp, "refused"))

    assert_equal 64, status.exitstatus
    assert_includes err, "demo runs on its bundled app"
    refute File.exist?(File.join(@tmp, "refused"))
  end
end
