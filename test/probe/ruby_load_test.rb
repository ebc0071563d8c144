# frozen_string_literal: true

require "test_helper"
require "json"
require "mallard/probe/load"
require_relative "../support/puma_server"
require_relative "../support/load_drivers"

# The built-in client against a real Puma on 127.0.0.1. Every run is bounded by both a duration
# and a request cap.
class RubyLoadTest < Minitest::Test
  include LoadDrivers

  def setup
    super
    @drivers = []
    @server = PumaServer.new("hello").start
  end

  def teardown
    @drivers&.each(&:stop)
    @server&.stop
    super
  end

  def test_round_robins_paths_so_half_the_responses_are_status_errors
    bounded do
      result = driver(paths: ["/", "/missing"], duration: 2, requests: 400, concurrency: 4).start.result

      assert_equal 400, result.requests
      assert_equal({ "200" => 200, "404" => 200 }, result.status_codes)
      assert_equal({ connect: 0, read: 0, write: 0, timeout: 0, status: 200 }, result.errors)
      assert_equal 200, result.errors_total
    end
  end

  def test_stops_at_the_request_cap_long_before_the_duration
    bounded do
      started = monotonic
      result = driver(duration: 5, requests: 200, concurrency: 4).start.result

      assert_equal 200, result.requests
      assert_operator monotonic - started, :<, 3
      refute result.interrupted
    end
  end

  def test_stops_at_the_duration_when_the_cap_is_far
    bounded do
      result = driver(paths: ["/slow"], duration: 0.5, requests: 100_000, concurrency: 2).start.result

      assert_in_delta 0.5, result.duration_s, 0.2
      assert_operator result.requests, :<, 100
    end
  end

  def test_stop_mid_run_reports_partial_counts
    bounded do
      client = driver(paths: ["/slow"], duration: 10, requests: 100_000, concurrency: 2).start
      sleep 1
      assert client.running?
      refute client.wait(0.01)

      result = client.stop.result

      assert result.interrupted
      assert_operator result.requests, :>, 0
      assert_operator result.duration_s, :<, 3
      refute client.running?
    end
  end

  def test_counts_refused_connections_as_connect_errors
    bounded do
      client = driver(url: "http://127.0.0.1:#{closed_port}", duration: 0.3, requests: 50, concurrency: 2)
      result = client.start.result

      assert_equal 0, result.requests
      assert_operator result.errors[:connect], :>, 0
      assert_equal result.errors[:connect], result.errors_total
    end
  end

  def test_rejects_options_that_would_make_an_unbounded_or_malformed_run
    assert_raises(ArgumentError) { driver(duration: 0) }
    assert_raises(ArgumentError) { driver(duration: 1, requests: -1) }
    assert_raises(ArgumentError) { driver(duration: 1, paths: ["no-slash"]) }
    assert_raises(ArgumentError) { driver(duration: 1, paths: ["/a b"]) }
  end

  # 40 responses of 10 MB over 4 connections: a client holding whole bodies peaked at about 200 MB here;
  # one streaming them stays near its own baseline. Run in a child so the peak (VmHWM) is the client's.
  def test_bodies_are_streamed_and_dropped_not_held
    bounded do
      bulky = PumaServer.new("bulky", threads: "4:4").start
      requests, peak_kb = load_in_child(bulky.url, requests: 40, concurrency: 4)
      received_kb = requests * 10 * 1024

      assert_equal 40, requests
      assert_operator peak_kb, :<, received_kb / 8, "peak #{peak_kb} KB for #{received_kb} KB received"
    ensure
      bulky&.stop
    end
  end

  def test_forced_fallback_explains_itself
    driver = Mallard::Probe::Load.driver(force_ruby: true, url: @server.url, duration: 1, requests: 10)

    assert_instance_of Mallard::Probe::RubyLoad, driver
    assert_match(/CPU/, Mallard::Probe::Load.fallback_note)
    refute_includes Mallard::Probe::Load.fallback_note, "\n"
  end

  private

  def tool_name = "ruby"

  # @return [Array(Integer, Integer)] responses received, and the child's peak RSS in KB
  def load_in_child(url, requests:, concurrency:)
    code = <<~RUBY
      require "mallard"
      result = Mallard::Probe::RubyLoad.new(url: #{url.dump}, duration: 30, requests: #{requests},
                                            concurrency: #{concurrency}).start.result
      puts result.requests, File.read("/proc/self/status")[/VmHWM:\\s+(\\d+)/, 1]
    RUBY
    out, status = Open3.capture2(Gem.ruby, "-I#{File.expand_path('../../lib', __dir__)}", "-e", code)
    assert status.success?, out
    out.split.map { |line| Integer(line) }
  end

  def driver(**options)
    Mallard::Probe::RubyLoad.new(url: @server.url, **options).tap { |client| @drivers << client }
  end
end
