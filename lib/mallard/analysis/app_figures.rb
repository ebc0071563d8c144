# frozen_string_literal: true

module Mallard
  module Analysis
    # What the agent's middleware saw inside the app, set against what the load tool saw from outside.
    #
    # A request's time from outside splits into its wait before the app got it (queue_ms, from the X-Request-Start
    # header mallard's load clients send), the app's own time (in_app_ms: what an in-app timer such as Rails' log
    # line reports), the body's iteration and writing (body_ms) and the rest (the server after the body: its writes
    # and bookkeeping; on loopback there is no network to speak of). The agent sees the first three of each
    # request it samples, so the server's time of a request is their sum; the rest is the median from outside less
    # the median of those sums. Medians, because wrk's mean
    # and upper percentiles include its correction for coordinated omission (synthetic samples for responses slower
    # than the connections' pace), which no in-app figure has.
    #
    # Queueing is not a finding: with 10 connections and 5 server threads each request waits for a free thread
    # about as long as the app works on one (Little's law: 10 / 5 × 169 ms ≈ 338 ms from outside, where the app
    # saw 169), and that is the load's shape, not the app's cost. What is flagged is the time beyond queueing and
    # the app's own — a body written line by line (1,300 writes cost one app 150 ms a request), a slow server —
    # when it is both large next to the app's time and above a few milliseconds.
    #
    # Nor is waiting for the CPU. A process whose threads keep a core busy (Ruby's GVL runs one of them at a time)
    # or a subject using all its CPUs makes every thread wait its turn, before the app is called and after it
    # returns, where its timer cannot see: five busy threads on one core showed 120 ms of that on a Rails app. Then
    # only the body's own time can be blamed; the rest is the wait, which more processes would shorten.
    module AppFigures
      CHUNKY_RESPONSE = 100 # chunks: each is its own write to the socket
      GAP_RATIO = 2.0
      GAP_MIN_MS = 5.0
      # The share of its CPU capacity at which a subject is taken as saturated.
      SATURATED = 0.85

      module_function

      # @param agent_records [Array<Run::AgentRecord>]
      # @param load [Probe::LoadResult, nil]
      # @param cpu_s [Float, nil] the subject's CPU time across the load (CpuCost)
      # @param cpus [Integer, nil] the CPUs the subject had
      # @return [Summary::App, nil]
      def call(agent_records, load, cpu_s: nil, cpus: nil)
        in_app = agent_records.flat_map { |r| r.in_app_ms || [] }
        return if in_app.empty?

        body = agent_records.flat_map { |r| r.body_ms || [] }.compact # nil: an Array body, written by the server
        queue = agent_records.flat_map { |r| r.queue_ms || [] }.compact
        chunks = agent_records.flat_map { |r| r.chunks || [] }
        app = Summary::App.new(requests_recorded: in_app.size, in_app_ms: percentiles(in_app),
                               body_ms: percentiles(body), queue_ms: percentiles(queue),
                               chunks_per_response: { "p50" => Statistics.median(chunks), "max" => chunks.max },
                               outside: outside(load, agent_records, queued: queue.any?))
        app.with(flags: flags(app, saturated?(agent_records, load, cpu_s, cpus)))
      end

      def flags(app, saturated)
        [chunk_flag(app), saturated ? body_flag(app) : gap_flag(app)].compact
      end

      # Whether the subject used nearly all it could: a core per serving process, or its CPUs if fewer.
      def saturated?(records, load, cpu_s, cpus)
        return false unless cpu_s && load&.duration_s&.positive?

        processes = records.map(&:pid).uniq.size
        cpu_s / load.duration_s >= SATURATED * [processes, cpus || processes].min
      end

      def percentiles(values)
        Summary::Percentiles.new(**%i[p50 p90 p99].to_h do |name|
          [name, Statistics.percentile(values, Integer(name[1..]))&.round(3)]
        end)
      end

      # The median request from outside, in parts (medians of each); nil without the load tool's figures.
      # queue_ms is nil when no request said when it left: queueing then stays in rest_ms.
      def outside(load, records, queued:)
        external = load&.latency_ms&.fetch(:p50, nil)
        return unless external&.positive?

        server = Statistics.median(records.flat_map { |record| server_times(record) })
        Summary::Outside.new(external_ms: external.round(3), server_ms: server.round(3),
                             queue_ms: (median_of(records, :queue_ms) if queued),
                             in_app_ms: median_of(records, :in_app_ms), body_ms: median_of(records, :body_ms) || 0.0,
                             rest_ms: (external - server).round(3))
      end

      # Each request's time in the server: its queueing, the app's time and the body's, none missing counted as 0.
      def server_times(record)
        queue = record.queue_ms || []
        body = record.body_ms || []
        record.in_app_ms.each_with_index.map { |in_app, i| in_app + queue[i].to_f + body[i].to_f }
      end

      def median_of(records, column)
        Statistics.median(records.flat_map { |record| record.public_send(column) || [] }.compact)&.round(3)
      end

      def chunk_flag(app)
        median = app.chunks_per_response["p50"]
        return unless median && median >= CHUNKY_RESPONSE

        "responses are written in #{median.round} chunks (median); each chunk costs a write that no " \
          "in-app timer sees — build the body as one string or a few large chunks"
      end

      # Time outside the app's timer beyond queueing: the body's, and what the server adds after it.
      def gap_flag(app)
        parts = app.outside
        return unless parts

        unseen = parts.body_ms + [parts.rest_ms, 0].max
        return unless unseen > parts.in_app_ms * (GAP_RATIO - 1) && unseen > GAP_MIN_MS

        format("requests take %.1f ms (median) from outside and %.1f ms inside the app%s: %.1f ms is spent where " \
               "the app's own timer cannot see it (body writing: %.1f ms; the server after the body: %.1f ms)",
               parts.external_ms, parts.in_app_ms, queueing(parts), unseen, parts.body_ms, [parts.rest_ms, 0].max)
      end

      # On a saturated CPU, the body's own time only: the rest outside the app is the wait for the CPU.
      def body_flag(app)
        parts = app.outside
        return unless parts && parts.body_ms > parts.in_app_ms * (GAP_RATIO - 1) && parts.body_ms > GAP_MIN_MS

        format("responses take %.1f ms (median) to write after the app's %.1f ms, where its own timer cannot see " \
               "it (the app was CPU-bound, so the rest of the time outside it is the wait for the CPU)",
               parts.body_ms, parts.in_app_ms)
      end

      def queueing(parts)
        return " (queueing was not measured: the client sent no X-Request-Start)" unless parts.queue_ms

        format(", after %.1f ms waiting for a free server thread", parts.queue_ms)
      end

      private_class_method :outside, :server_times, :median_of, :chunk_flag, :gap_flag, :body_flag, :queueing,
                           :saturated?, :flags
    end
  end
end
