# frozen_string_literal: true

require "test_helper"

# mallard's requests during a heap run: those inside a written dump's span against those outside every dump; a dump
# that was never written counts for neither.
class HeapLatencyTest < Minitest::Test
  def test_requests_inside_a_written_dump_are_set_against_those_outside_every_dump
    latency = call(requests: [written(1, 2.0, 4.0), written(2, 6.0, 7.0)],
                   probes: [[1.0, 2.0], [2.5, 40.0], [3.0, nil], [5.0, 3.0], [6.5, 60.0], [8.0, 4.0]])

    assert_equal({ requests: 3, answered: 2, errors: 1, p50_ms: 50.0, max_ms: 60.0 }, latency[:during])
    assert_equal({ requests: 3, answered: 3, errors: 0, p50_ms: 3.0, max_ms: 4.0 }, latency[:outside])
    assert_equal "/items", latency[:path]
  end

  def test_a_dump_never_written_has_no_latency_and_is_no_baseline
    latency = call(requests: [{ "number" => 1, "requested_t" => 2.0 }], probes: [[1.0, 2.0], [3.0, 90.0]])

    assert_nil latency[:during]
    assert_equal 1, latency[:outside][:requests], "the request after the dump was asked for is in neither"
  end

  def test_requests_that_all_failed_have_no_times
    latency = call(requests: [], probes: [[1.0, nil], [2.0, nil]])

    assert_equal({ requests: 2, answered: 0, errors: 2, p50_ms: nil, max_ms: nil }, latency[:outside])
    assert_nil call(requests: [], probes: [])
  end

  private

  def written(number, from, to)
    { "number" => number, "requested_t" => from, "picked_up_t" => from + 0.1, "ended_t" => to, "written" => true }
  end

  def call(requests:, probes:)
    Mallard::Analysis::HeapLatency.call("requests" => requests, "probes" => probes, "probe_path" => "/items",
                                        "load_ended_t" => 10.0)
  end
end
