# frozen_string_literal: true

require_relative "../value"
require_relative "figures"
require_relative "diff"
require_relative "expectation"

module Mallard
  module Summary
    # One process of a fleet as the comparison counts it: its labels (Prometheus's instance, pid, role...),
    # how many points the window held, and its time-weighted median, in the metric's unit (bytes).
    FleetProcess = Value.define(:set, :labels, :points, :median, :excluded)

    # One side: its selector and query, how many processes counted (and were left out for too few points), the
    # median of their medians and their range.
    FleetSet = Value.define(:name, :selector, :query, :processes, :excluded, :median, :min, :max)

    # Two sets of production processes compared: B against A as a % change with its interval (change), by the
    # method named, and the --fail-over gate's outcome; with --expect, the lab's prediction against it (nil without).
    Fleet = Value.define(:schema_version, :kind, :status, :reason, :run_dir, :prometheus, :metric, :series,
                         :since_s, :step_s, :start, :end, :methodology, :confidence, :smallest_sizes,
                         a: FleetSet, b: FleetSet, change: Change, fail_over: FailOver, processes: [FleetProcess],
                         expectation: Expectation)
  end
end
