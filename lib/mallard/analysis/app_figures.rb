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

      # @param agent_records [Array<Run::AgentRecord>]
      # @param load [Probe::LoadResult, nil]
      # @return [Summary::App, nil]
      def call(agent_records, load)
        in_app = agent_records.flat_map { |r| r.in_app_ms || [] }
        return if in_app.empty?

        body = agent_records.flat_map { |r| r.body_ms || [] }.compact # nil: an Array body, written by the server
        chunks = agent_records.flat_map { |r| r.chunks || [] }
        app = Summary::App.new(requests_recorded: in_app.size, in_app_ms: percentiles(in_app),
                               body_ms: percentiles(body),
                               chunks_per_response: { "p50" => Statistics.median(chunks), "max" => chunks.max })
        app.flags = [chunk_flag(app), gap_flag(app, load)].compact
        app
      end

      def percentiles(values)
        Summary::Percentiles.new(**%i[p50 p90 p99].to_h do |name|
          [name, Statistics.percentile(values, Integer(name[1..]))&.round(3)]
        end)
      end

      def chunk_flag(app)
        median = app.chunks_per_response["p50"]
        return unless median && median >= CHUNKY_RESPONSE

        "responses are written in #{median.round} chunks (median); each chunk costs a write that no " \
          "in-app timer sees — build the body as one string or a few large chunks"
      end

      def gap_flag(app, load)
        external = load&.latency_ms&.fetch(:p50, nil)
        in_app = app.in_app_ms.p50
        return unless external && in_app && external > in_app * GAP_RATIO && external - in_app > GAP_MIN_MS

        format("requests take %.1f ms (median) from outside but %.1f ms inside the app: %.1f ms is spent " \
               "where the app's own timer cannot see it (body writing: %.1f ms, queueing, the server)",
               external, in_app, external - in_app, app.body_ms.p50.to_f)
      end
    end
  end
end
