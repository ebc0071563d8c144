# frozen_string_literal: true

require "net/http"

# What the wrk and built-in-client tests share: both drivers answer to the same checks. A test class
# including this defines `driver(**options)`, a driver for its server, and `tool_name`.
module LoadDrivers
  def test_reports_requests_with_a_rate_consistent_with_its_duration
    bounded do
      result = driver(duration: 1, requests: 100_000).start.result

      assert_equal tool_name, result.tool
      assert_operator result.requests, :>, 0
      assert_in_delta result.requests / result.duration_s, result.rps, 0.001
      assert_in_delta 1.0, result.duration_s, 0.5
      assert_equal({ "200" => result.requests }, result.status_codes)
      assert_equal 0, result.errors_total
      refute result.interrupted
      assert_latencies_ordered result.latency_ms
    end
  end

  # The app counts the connections its requests came on (the client's address and port), this test's own read of
  # the count included: on keep-alive connections one a connection of the load, on new ones one a request.
  def test_reconnect_puts_every_request_on_a_new_connection
    bounded do
      kept = driver(duration: 5, requests: 20, concurrency: 2).start.result
      after_kept = Integer(Net::HTTP.get(URI("#{@server.url}/connections")))
      fresh = driver(duration: 5, requests: 20, concurrency: 2, reconnect: true).start.result
      after_fresh = Integer(Net::HTTP.get(URI("#{@server.url}/connections")))

      assert_equal [20, 20], [kept.requests, fresh.requests]
      assert_equal 2 + 1, after_kept, "two keep-alive connections, and this test's read"
      assert_equal 20 + 1, after_fresh - after_kept, "a connection a request, and this test's read"
    end
  end

  def test_measures_the_latency_of_a_slow_path
    bounded do
      result = driver(paths: ["/slow"], duration: 3, requests: 20, concurrency: 2).start.result

      assert_operator result.latency_ms[:p50], :>=, 50
      assert_latencies_ordered result.latency_ms
    end
  end

  def test_result_survives_a_json_round_trip
    bounded do
      result = driver(paths: ["/", "/missing"], duration: 1, requests: 100).start.result

      assert_equal result, Mallard::Probe::LoadResult.from_h(JSON.parse(JSON.generate(result.to_h)))
      assert_equal result, Mallard::Probe::LoadResult.from_h(result.to_h)
    end
  end

  # A request line is ASCII: other bytes in a path go percent-encoded, as a browser sends them. The app
  # knows neither path, so every response is a 404, and none is an error of the driver's.
  def test_a_path_with_bytes_a_request_line_cannot_carry_is_sent_percent_encoded
    bounded do
      load = driver(paths: ["/caf\u00e9", "/x\xff"], duration: 1, requests: 50)
      result = load.start.result

      assert_equal ["/caf%C3%A9", "/x%FF"], load.paths
      assert_operator result.requests, :>, 0
      assert_equal({ "404" => result.requests }, result.status_codes)
    end
  end

  def bounded(&)
    Timeout.timeout(Processes::TEST_TIMEOUT, &)
  end

  # A port nothing listens on: the OS chose it for a server that is closed again.
  def closed_port
    Mallard::Target::FreePort.pick
  end

  def assert_latencies_ordered(latency)
    assert_operator latency[:p50], :>, 0
    assert_operator latency[:p50], :<=, latency[:p90]
    assert_operator latency[:p90], :<=, latency[:p99]
    assert_operator latency[:p99], :<=, latency[:max]
  end

  def monotonic
    Mallard::Clock.monotonic
  end
end
