# frozen_string_literal: true

module Mallard
  module Analysis
    # The load tool's own figures, as the summary shows them.
    module LoadFigures
      module_function

      def call(load)
        return if load.nil?

        { tool: load["tool"], requests: load["requests"], duration_s: load["duration_s"], rps: load["rps"]&.round(1),
          latency_ms: load["latency_ms"], errors: load["errors_total"], errors_by_kind: load["errors"],
          status_codes: load["status_codes"], interrupted: load["interrupted"] }
      end
    end
  end
end
