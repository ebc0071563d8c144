# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "mallard/probe/load"
require_relative "../support/puma_server"
require_relative "../support/load_drivers"

# wrk against a real Puma on 127.0.0.1. Every run is bounded by both a duration and a request cap.
class WrkTest < Minitest::Test
  include Processes
  include LoadDrivers

  def setup
    super
    skip "wrk is not installed" unless Mallard::Probe::Wrk.available?
    @dir = Dir.mktmpdir("mallard-wrk-test")
    @drivers = []
    @server = PumaServer.new("hello").start
  end

  def teardown
    @drivers&.each(&:stop)
    @server&.stop
    FileUtils.rm_rf(@dir) if @dir
    super
  end

  def test_round_robins_paths_so_half_the_responses_are_status_errors
    bounded do
      result = driver(paths: ["/", "/missing"], duration: 2, requests: 400, concurrency: 4).start.result

      assert_in_delta result.requests / 2.0, result.errors[:status], 4
      assert_equal result.errors[:status], result.status_codes["404"]
      assert_equal result.requests, result.status_codes.values.sum
      assert_equal result.errors[:status], result.errors_total
    end
  end

  def test_stops_at_the_request_cap_long_before_the_duration
    bounded do
      started = monotonic
      result = driver(duration: 5, requests: 200, concurrency: 4).start.result

      assert_operator result.requests, :>=, 200
      assert_operator result.requests, :<=, 204
      assert_operator monotonic - started, :<, 3, "wrk should be interrupted once every thread reached its share"
      refute result.interrupted
    end
  end

  def test_stop_mid_run_reports_partial_counts_and_leaves_no_process
    bounded do
      client = driver(paths: ["/slow"], duration: 10, requests: 100_000, concurrency: 2).start
      sleep 1
      result = client.stop.result

      assert result.interrupted
      assert_operator result.requests, :>, 0
      assert_operator result.duration_s, :<, 3
      refute client.running?
      assert_raises(Errno::ESRCH) { Process.kill(0, -client.pid) }
      refute_includes children_of(Process.pid), client.pid
    end
  end

  def test_stop_right_after_start_still_gets_a_report
    bounded do
      client = driver(duration: 10, requests: 100_000).start
      result = client.stop.result

      assert result.interrupted
      assert_operator result.duration_s, :<, 3
      assert_raises(Errno::ESRCH) { Process.kill(0, -client.pid) }
    end
  end

  def test_copies_wrk_output_to_the_log
    bounded do
      client = driver(duration: 1, requests: 50)
      client.start.result
      log = File.read(client.log_path)

      assert_match(/Latency Distribution/, log)
      assert_match(/^MALLARD_JSON \{/, log)
    end
  end

  def test_raises_with_wrk_output_when_it_reports_nothing
    bounded do
      client = driver(url: "http://127.0.0.1:#{closed_port}", duration: 1, requests: 10)
      error = assert_raises(Mallard::Error) { client.start.result }

      assert_match(/unable to connect/, error.message)
    end
  end

  def test_driver_prefers_wrk_unless_told_otherwise
    options = { url: @server.url, duration: 1, log_path: File.join(@dir, "unused.log"), threads: 2 }

    assert_instance_of Mallard::Probe::Wrk, Mallard::Probe::Load.driver(**options)
    assert_instance_of Mallard::Probe::RubyLoad, Mallard::Probe::Load.driver(force_ruby: true, **options)
  end

  private

  def tool_name = "wrk"

  def driver(**options)
    defaults = { url: @server.url, log_path: File.join(@dir, "wrk-#{@drivers.size}.log") }
    Mallard::Probe::Wrk.new(**defaults, **options).tap { |client| @drivers << client }
  end
end
