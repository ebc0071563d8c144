# frozen_string_literal: true

module Mallard
  module Analysis
    # The x axis of the leak fit: requests served at each sample. The agent counts them inside
    # the app; without it (a command target that is not Rack, say) they are estimated from the
    # load tool's average rate, and the summary says so. An idle soak (soak --jobs … --idle) has no work to count:
    # its axis is the seconds since its start, so its slope is growth over time, the backend's own.
    module RequestAxis
      IDLE = "seconds with no work (--idle)"

      module_function

      # @param samples [Array<Run::TotalSample>]
      # @return [Array(Array<Numeric>, String)] requests per sample, and where they came from
      def call(samples, load:, phases:, idle: false)
        return [samples.map { |sample| sample.t - phases.load_started_t.to_f }, IDLE] if idle

        counted = samples.map { |sample| sample.requests.to_i }
        return [counted, "agent"] if counted.any? && counted.last > counted.first

        [estimated(samples, load, phases), "estimated from the load tool's average rate"]
      end

      def estimated(samples, load, phases)
        rate = load ? load.rps.to_f : 0.0
        start = phases.load_started_t.to_f
        samples.map { |sample| ((sample.t - start) * rate).round }
      end
    end
  end
end
