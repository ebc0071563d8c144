# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/puma_server"

# Issue 20: mallard's answer must be the app's, not the lab's. Confined to one CPU of two (the old default), a
# fragmenting app's glibc RSS fell from 379 to 202 MiB and MALLOC_ARENA_MAX=2's saving from −42% to −7%. By
# default compare now runs the app as production would, and its saving must match the same app under plain Puma
# and wrk, read from /proc by this test. The tolerance, 12 points, is far inside the gap confinement made (35
# points) and wider than two repeats' run-to-run spread of a fragmenting app on this machine.
class FidelityIntegrationTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/fragmenting", __dir__)
  SECONDS = 10
  REPEATS = 2
  TOLERANCE_POINTS = 12

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-fidelity-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_compare_by_default_finds_the_saving_plain_puma_shows
    summary = compare
    by_hand = Hash.new { |hash, key| hash[key] = [] }
    REPEATS.times { [nil, "2"].each { |arenas| by_hand[arenas] << plain_steady_rss_kb(arenas) } }
    hand_pct = ((median(by_hand["2"]) / median(by_hand[nil])) - 1) * 100
    mallard_pct = summary["configs"].find { |config| config["name"] == "glibc-arena2" }.dig("vs_baseline", "rss_pct")

    refute summary.dig("cpu_layout", "pinned"), "the default shares every CPU"
    # Two 10 s runs of the fixture came out −12% to −30% apart by hand; the claim tested is the agreement below.
    assert_operator hand_pct, :<, -5, "the fixture fragments glibc under plain Puma: #{by_hand}"
    assert_in_delta hand_pct, mallard_pct, TOLERANCE_POINTS,
                    "mallard #{mallard_pct.round(1)}% against plain Puma #{hand_pct.round(1)}% (#{by_hand})"
  end

  private

  def compare
    out, err, status = mallard("compare", APP, "--allocators", "glibc,glibc-arena2", "--repeat", REPEATS.to_s,
                               "--duration", SECONDS.to_s, "--threads", "5", "--concurrency", "8", "--json",
                               "--out", File.join(@tmp, "compare"), timeout: 300)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  # Plain Puma on the fixture's own config.ru and plain wrk, no mallard: RSS from smaps_rollup every half second,
  # the median of the load's second half (mallard's steady window starts after its detected warm-up).
  def plain_steady_rss_kb(arena_max)
    env = { "MALLOC_ARENA_MAX" => arena_max, "LD_PRELOAD" => nil, "MALLOC_CONF" => nil, "RUBYOPT" => nil }
    server = PumaServer.new(APP, threads: "5:5", env: env).start
    wrk = Process.spawn("wrk", "-t", "2", "-c", "8", "-d", "#{SECONDS}s", "#{server.url}/", out: File::NULL)
    @spawned << wrk
    steady = readings(server.pid).last(SECONDS) # the second half
    Process.wait(wrk)
    median(steady)
  ensure
    server&.stop
  end

  # RSS from smaps_rollup every half second for SECONDS.
  def readings(pid)
    (SECONDS * 2).times.map do
      sleep 0.5
      File.read("/proc/#{pid}/smaps_rollup")[/^Rss:\s+(\d+)/, 1].to_f
    end
  end

  def median(values)
    Mallard::Analysis::Statistics.median(values)
  end
end
