# frozen_string_literal: true

module Mallard
  module Probe
    # What one load run did, whichever client drove it. Latencies are in milliseconds; `requests`
    # counts completed responses, status errors included, so `rps` is requests / duration_s.
    # `status_codes` is empty when the client could not tell codes apart. An open loop (--rate) keeps its
    # target_rate, how many requests left later than their schedule (late) and the latest of them (max_late_ms);
    # all three are nil in a closed loop.
    LoadResult = Struct.new(:tool, :requests, :duration_s, :rps, :errors, :errors_total, :latency_ms,
                            :status_codes, :interrupted, :target_rate, :late, :max_late_ms, keyword_init: true)

    class LoadResult
      ERROR_KINDS = %i[connect read write timeout status].freeze
      LATENCY_KEYS = %i[p50 p90 p99 max mean].freeze

      # Fills the derived fields (rps, errors_total) and normalises the hashes, so every client
      # builds a result the same way and a reloaded one compares equal to the original.
      def self.build(tool:, requests:, duration_s:, errors:, latency_ms:, status_codes: {}, interrupted: false,
                     pacing: {})
        errors = ERROR_KINDS.to_h { |kind| [kind, Integer(errors.fetch(kind, 0))] }
        duration_s = Float(duration_s)
        new(tool: tool, requests: Integer(requests), duration_s: duration_s,
            rps: duration_s.positive? ? requests / duration_s : 0.0,
            errors: errors, errors_total: errors.values.sum,
            latency_ms: LATENCY_KEYS.to_h { |key| [key, Float(latency_ms.fetch(key, 0))] },
            status_codes: status_codes.to_h { |code, count| [code.to_s, Integer(count)] },
            interrupted: interrupted ? true : false, **pacing(pacing))
      end

      def self.pacing(hash)
        return {} unless hash[:target_rate]

        { target_rate: Float(hash[:target_rate]), late: Integer(hash.fetch(:late, 0)),
          max_late_ms: Float(hash.fetch(:max_late_ms, 0)) }
      end

      # Reloads #to_h output, whether its keys are symbols or, after a JSON round trip, strings.
      def self.from_h(hash)
        hash = hash.transform_keys(&:to_sym)
        new(tool: hash.fetch(:tool), requests: Integer(hash.fetch(:requests)),
            duration_s: Float(hash.fetch(:duration_s)), rps: Float(hash.fetch(:rps)),
            errors: symbol_keyed(hash.fetch(:errors)) { |count| Integer(count) },
            errors_total: Integer(hash.fetch(:errors_total)),
            latency_ms: symbol_keyed(hash.fetch(:latency_ms)) { |value| Float(value) },
            status_codes: hash.fetch(:status_codes, {}).to_h { |code, count| [code.to_s, Integer(count)] },
            interrupted: hash.fetch(:interrupted) ? true : false, **pacing(hash))
      end

      def self.symbol_keyed(hash, &convert)
        hash.to_h { |key, value| [key.to_sym, convert.call(value)] }
      end

      # Symbol keys throughout, except status codes, which are data ("200") rather than names.
      def to_h
        { tool: tool, requests: requests, duration_s: duration_s, rps: rps, errors: errors.dup,
          errors_total: errors_total, latency_ms: latency_ms.dup, status_codes: status_codes.dup,
          interrupted: interrupted, target_rate: target_rate, late: late, max_late_ms: max_late_ms }
      end
    end
  end
end
