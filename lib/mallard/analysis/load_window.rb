# frozen_string_literal: true

module Mallard
  module Analysis
    # The `total` samples taken while load ran, in time order: the window every steady-state figure
    # of a soak comes from. A run killed before load finished has no end time, so it runs to the end.
    module LoadWindow
      module_function

      # @param samples [Array<Hash>] samples.jsonl records (string keys)
      # @param phases [Hash] meta.json's phases
      def select(samples, phases)
        from = phases["load_started_t"] || 0
        to = phases["load_finished_t"] || Float::INFINITY
        samples.select { |s| s["kind"] == "total" && s["t"].is_a?(Numeric) && s["t"].between?(from, to) }
               .sort_by { |s| s["t"] }
      end
    end
  end
end
