# frozen_string_literal: true

# What the wrk and built-in-client tests share: both drivers answer to the same checks.
module LoadDrivers
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
