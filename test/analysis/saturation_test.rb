# frozen_string_literal: true

require "test_helper"

# A load that failed on timeouts says the app was saturated, and what load it would serve, as data (SoakSentencesTest
# words it).
class SaturationTest < Minitest::Test
  Saturation = Mallard::Analysis::Saturation

  # The Rails app of issue 39: 10 connections, 8.2 req/s served, 73 of 868 attempts timed out.
  def test_timeouts_suggest_half_the_connections_and_three_quarters_of_the_rate
    result = Saturation.call(load(timeout: 73, requests: 795, rps: 8.2), concurrency: 10, timeout_s: 5)

    assert_equal [73, 4, 6.1], [result.timeouts, result.suggest_concurrency, result.suggest_rate]
    assert_equal [5, 8.2, 10], [result.timeout_s, result.served_rps, result.concurrency]
  end

  def test_an_open_loop_gets_a_rate_only
    result = Saturation.call(load(timeout: 50, requests: 100, rps: 3.0), concurrency: nil, timeout_s: 5)

    assert_nil result.suggest_concurrency
    assert_equal 2.3, result.suggest_rate
  end

  def test_errors_that_are_not_mostly_timeouts_are_not_saturation
    assert_nil Saturation.call(load(timeout: 2, connect: 50, requests: 100, rps: 50.0), concurrency: 10, timeout_s: 5)
    assert_nil Saturation.call(load(requests: 100, rps: 50.0), concurrency: 10, timeout_s: 5)
  end

  def test_one_connection_is_the_least_suggested
    result = Saturation.call(load(timeout: 90, requests: 10, rps: 0.5), concurrency: 2, timeout_s: 5)

    assert_equal 1, result.suggest_concurrency
  end

  private

  def load(requests:, rps:, timeout: 0, connect: 0)
    errors = { "connect" => connect, "read" => 0, "write" => 0, "timeout" => timeout, "status" => 0 }
    Mallard::Summary::Load.new(requests: requests, rps: rps, errors: timeout + connect, errors_by_kind: errors,
                               attempts: requests + timeout + connect)
  end
end
