# frozen_string_literal: true

require_relative "../value"
require_relative "figures"

module Mallard
  module Summary
    # A soak's work in three figures, whatever the work was: unit ("requests", or a job worker's "jobs"), the rate
    # (req/s or jobs/s), the latency that matters (each request's, or each job's wait in its queue), the failures
    # (errors, or failed jobs) and the app's CPU time per unit of work. Analysis::Headline decides which is which,
    # once, for compare, diff and the progress lines.
    Headline = Value.define(:unit, :rate, :errors, :cpu_ms_per_unit, latency_ms: Percentiles)
  end
end
