# frozen_string_literal: true

module Mallard
  module Analysis
    # The load tool's own figures, as the summary shows them, and the share of attempts that failed: a
    # request that never got a response (connect, read, write, timeout) is an attempt as much as one answered
    # with a 5xx, which the tool counts among its requests.
    module LoadFigures
      module_function

      # @param load [Probe::LoadResult, nil]
      # @return [Summary::Load, nil]
      def call(load)
        return if load.nil?

        Summary::Load.new(tool: load.tool, requests: load.requests, duration_s: load.duration_s,
                          rps: load.rps&.round(1), latency_ms: Summary::Percentiles.new(**load.latency_ms),
                          errors: load.errors_total, attempts: attempts(load), error_pct: error_pct(load),
                          errors_by_kind: load.errors, status_codes: load.status_codes, interrupted: load.interrupted,
                          target_rate: load.target_rate, late_pct: late_pct(load)&.round(2),
                          max_late_ms: load.max_late_ms&.round(1))
      end

      # An open loop's requests that left later than their schedule, as a share of those sent; nil in a closed loop.
      def late_pct(load)
        return unless load&.target_rate && load&.late

        sent = attempts(load)
        sent.positive? ? 100.0 * load.late / sent : 0.0
      end

      def attempts(load)
        load.requests + load.errors_total - load.errors.fetch(:status, 0)
      end

      # 100 when nothing was attempted at all: a run that served nothing measured nothing.
      def error_pct(load)
        attempts = attempts(load)
        attempts.positive? ? (100.0 * load.errors_total / attempts).round(3) : 100.0
      end
    end
  end
end
