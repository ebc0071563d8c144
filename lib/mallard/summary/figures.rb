# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # Percentiles of a distribution (latency, in-app time); members a figure does not have stay nil.
    Percentiles = Value.define(:p50, :p90, :p99, :max, :mean)

    # A level at the start and the end of the measured span (live slots, old objects, heap pages).
    Span = Value.define(:start, :end)

    # A median over repeats with its 95% interval ([low, high] or nil), and the values behind it.
    Estimate = Value.define(:median, :ci, :values)

    # A change against a reference: % and its 95% interval, whether it counts (Analysis::Significance), what
    # that means in one word (finding: "different", "within_noise" — told from zero but not from the ±1% noise
    # band —, "no_difference", or "no_interval"), and why there is no interval when there is none.
    Change = Value.define(:pct, :ci, :significant, :finding, :note, :noise_pct)
  end
end
