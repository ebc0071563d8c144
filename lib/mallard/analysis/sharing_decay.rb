# frozen_string_literal: true

require_relative "role_memory"

module Mallard
  module Analysis
    # Copy-on-write decay: each worker's shared and private memory against the requests it has served, from the
    # sampler's per-process readings (shared = RSS − USS: the pages it still shares with its master and siblings;
    # private = USS) and the agent's per-process counts. A preloaded worker starts sharing most of its master's pages
    # and unshares one each time it writes to it; where the fall flattens (every page it writes is its own by then) or
    # starts, there is a knee, and a refork there would have kept what was shared then.
    #
    # The knee is the point farthest from the straight line between the first and the last point, on both axes
    # scaled to [0, 1] (the "kneedle" rule): the point of greatest curvature, whichever way the curve bends. It is
    # only a knee when that distance is at least KNEE_DISTANCE, so a straight fall or a flat line has none.
    module SharingDecay
      MIN_POINTS = 5
      KNEE_DISTANCE = 0.1
      # Below this share lost, sharing did not decay: the few pages a worker writes after fork (its own stacks, the
      # counters of the objects it touches first) are no decay.
      MIN_LOSS = 0.05
      # A long soak has thousands of ticks a worker; the summary keeps about this many of them (the knee is found on
      # them all).
      MAX_POINTS = 200

      module_function

      # @param run [Run::SoakRun]
      # @return [Summary::SharingDecay, nil] nil when the tree had no workers (one process shares with nothing)
      def call(run)
        # A process seen on one tick (a child Resque forks for one job) shows no decay.
        workers = workers(run).group_by(&:pid).select { |_, samples| samples.size > 1 }
        return if workers.empty?

        counts = run.agent.group_by(&:pid)
        rate = estimated_rate(run, workers.size)
        Summary::SharingDecay.new(workers: workers.map do |pid, samples|
          worker(pid, samples, counts[pid], rate, run.phases.load_started_t)
        end)
      end

      # The tree's workers: where the titles name them (RoleMemory.worker_pids), theirs alone, since a job backend's
      # dispatcher and scheduler are children that run no jobs; else every process but the one mallard started.
      def workers(run)
        named = RoleMemory.worker_pids(run)
        return run.processes.reject { |sample| sample.role == "main" } if named.empty?

        run.processes.select { |sample| named.include?(sample.pid) }
      end

      # Without the agent's count in a worker, its requests are the load tool's average rate shared evenly among the
      # workers, from the start of load: requests/s per worker (nil without a load tool's rate).
      def estimated_rate(run, workers)
        rps = run.load&.rps
        rps.to_f / workers if rps&.positive?
      end

      def worker(pid, samples, counts, rate, load_started_t)
        readings = samples.select { |sample| sample.rss_kb && sample.uss_kb }.sort_by(&:t)
        axis = counts ? counted(readings, counts) : estimated(readings, rate, load_started_t)
        points = readings.zip(axis).filter_map do |sample, requests|
          next unless requests

          Summary::SharingPoint.new(requests: requests, shared_kb: sample.rss_kb - sample.uss_kb,
                                    private_kb: sample.uss_kb, t: sample.t)
        end
        judged(pid, points, counts ? "agent" : "estimated")
      end

      # The worker's count at each tick, between its agent records on either side of it: a record comes every interval
      # (half a second), so the count at the latest one alone lags the tick by up to an interval's requests, and the
      # fall would look steeper than it is. 0 before its first record; its last count after its last.
      def counted(readings, counts)
        records = counts.select { |record| record.requests.is_a?(Numeric) }.sort_by(&:t)
        seen = 0
        readings.map do |sample|
          seen += 1 while seen < records.size && records[seen].t <= sample.t
          between(records[seen - 1], records[seen], sample.t) if seen.positive?
        end.map(&:to_i)
      end

      def between(before, after, time)
        return before.requests unless after && after.t > before.t

        (before.requests + ((after.requests - before.requests) * (time - before.t) / (after.t - before.t))).round
      end

      def estimated(readings, rate, load_started_t)
        return readings.map { nil } unless rate

        start = load_started_t.to_f
        readings.map { |sample| ((sample.t - start).clamp(0, nil) * rate).round }
      end

      def judged(pid, points, source)
        first = points.first
        last = points.last
        kept = (last.shared_kb.to_f / first.shared_kb).round(4) if first&.shared_kb.to_i.positive?
        knee = knee(points, kept)
        Summary::WorkerSharing.new(
          pid: pid, requests_source: source, requests: last&.requests, shared_start_kb: first&.shared_kb,
          shared_end_kb: last&.shared_kb, kept: kept, finding: finding(points, kept, knee),
          knee_requests: knee&.requests, knee_shared_kb: knee&.shared_kb, points: thinned(points)
        )
      end

      # "knee", "steady_fall" (it fell, but along a line), "no_decay" (it kept nearly all it shared), or
      # "too_few_points" to say anything.
      def finding(points, kept, knee)
        return "too_few_points" if points.size < MIN_POINTS || kept.nil? || !served?(points)
        return "no_decay" if kept > 1 - MIN_LOSS

        knee ? "knee" : "steady_fall"
      end

      def served?(points) = points.last.requests > points.first.requests

      # @return [Summary::SharingPoint, nil]
      def knee(points, kept)
        return if finding(points, kept, nil) != "steady_fall"

        scaled = scale(points)
        distances = scaled.map { |x, y| distance(x, y, scaled.first, scaled.last) }
        best = distances.each_index.max_by { |i| distances[i] }
        points[best] if distances[best] >= KNEE_DISTANCE
      end

      # Both axes to [0, 1] over their own span.
      def scale(points)
        xs = points.map(&:requests)
        ys = points.map(&:shared_kb)
        x_span = (xs.max - xs.min).to_f
        y_span = [(ys.max - ys.min).to_f, 1.0].max
        xs.zip(ys).map { |x, y| [(x - xs.min) / x_span, (y - ys.min) / y_span] }
      end

      # From the point (x, y) to the line through from and to.
      def distance(x, y, from, to)
        dx = to[0] - from[0]
        dy = to[1] - from[1]
        ((dy * x) - (dx * y) + (to[0] * from[1]) - (to[1] * from[0])).abs / Math.sqrt((dx**2) + (dy**2))
      end

      # Every nth point, the last always kept.
      def thinned(points)
        return points if points.size <= MAX_POINTS

        step = (points.size / MAX_POINTS.to_f).ceil
        kept = points.each_slice(step).map(&:first)
        kept.last.equal?(points.last) ? kept : kept << points.last
      end

      private_class_method :workers, :estimated_rate, :worker, :counted, :between, :estimated, :judged, :finding,
                           :served?, :knee, :scale, :distance, :thinned
    end
  end
end
