# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Run
    # One step of `--concurrency auto`'s ramp: a short closed-loop load at this many connections, as the load tool
    # counted it.
    RampStep = Value.define(:concurrency, :requests, :rps, :p99_ms, :errors, :duration_s)

    # The ramp run before a soak's load (ramp.json): each step's figures; step_s: each step's length.
    Ramp = Value.define(:step_s, :timeout_s, steps: [RampStep])
  end
end
