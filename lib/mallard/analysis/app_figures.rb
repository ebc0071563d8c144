# frozen_string_literal: true

module Mallard
  module Analysis
    # What the agent's middleware saw inside the app, set against what the load tool saw from
    # outside. Time the in-app timer misses (a body written line by line, queueing) shows up
    # as the gap between the two.
    module AppFigures
      CHUNKY_RESPONSE = 100 # chunks: each is its own write to the socket
      GAP_RATIO = 2.0
      GAP_MIN_MS = 5.0

      module_function

      def call(agent_records, load)
        in_app = agent_records.flat_map { |r| r["in_app_ms"] || [] }
        return if in_app.empty?

        body = agent_records.flat_map { |r| r["body_ms"] || [] }.compact # nil: an Array body, written by the server
        chunks = agent_records.flat_map { |r| r["chunks"] || [] }
        figures = { requests_recorded: in_app.size, in_app_ms: percentiles(in_app), body_ms: percentiles(body),
                    chunks_per_response: { p50: Statistics.median(chunks), max: chunks.max } }
        figures.merge(flags: flags(figures, load))
      end

      def percentiles(values)
        %w[p50 p90 p99].to_h { |name| [name.to_sym, Statistics.percentile(values, Integer(name[1..]))&.round(3)] }
      end

      def flags(figures, load)
        [chunk_flag(figures), gap_flag(figures, load)].compact
      end

      def chunk_flag(figures)
        median = figures.dig(:chunks_per_response, :p50)
        return unless median && median >= CHUNKY_RESPONSE

        "responses are written in #{median.round} chunks (median); each chunk costs a write that no " \
          "in-app timer sees — build the body as one string or a few large chunks"
      end

      def gap_flag(figures, load)
        external = load&.dig("latency_ms", "p50")
        in_app = figures.dig(:in_app_ms, :p50)
        return unless external && in_app && external > in_app * GAP_RATIO && external - in_app > GAP_MIN_MS

        format("requests take %.1f ms (median) from outside but %.1f ms inside the app: %.1f ms is spent " \
               "where the app's own timer cannot see it (body writing: %.1f ms, queueing, the server)",
               external, in_app, external - in_app, figures.dig(:body_ms, :p50).to_f)
      end
    end
  end
end
