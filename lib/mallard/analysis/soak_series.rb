# frozen_string_literal: true

module Mallard
  module Analysis
    # Every series a view draws of one soak, as [t, value] points on the clock the sampler and the agent share
    # (seconds since the run's start, MALLARD_T0).
    #
    # Rates come from what was counted, against the clock it was counted on: each agent record carries its
    # process's cumulative requests and GC counts at its own time, so a bin's rate is the increments its
    # records carry over the bin's width. (The sampler's copy of the request count lags the agent by up to an
    # interval, and differencing it drew drops to 0 req/s while load never paused.) A series nobody measured —
    # no agent inside the subject, so no request or GC records — is nil, not a line of zeros.
    module SoakSeries
      MAX_POINTS = 1000

      module_function

      # @param run [Run::SoakRun]
      # @param warmup [Float, nil] seconds of warm-up after the start of load
      # @return [Summary::SoakSeries]
      # @param live_set_measure [String, nil] the live-set measure the verdict was judged on (LiveSet)
      def call(run, warmup: nil, live_set_measure: nil)
        width = (run.interval.to_f * 2).round(3) # agent records jitter by a fraction of an interval
        start = run.phases.load_started_t
        loaded = under_load(run)
        Summary::SoakSeries.new(
          rss_kb: memory(run.totals, :rss_kb), pss_kb: memory(run.totals, :pss_kb),
          processes: processes(run), rps: requests_per_second(loaded, width),
          **gc_rates(loaded, width), live_slots: live_slots(run.agent, width), bin_s: width,
          load_started_t: start, gc_pause_ms: gc_pauses(run), live_set: live_set(run, live_set_measure),
          enqueued: queue(run.jobs, :enqueued), oldest_wait_ms: queue(run.jobs, :latency_ms),
          warmup: start && warmup.to_f.positive? ? [start, (start + warmup).round(3)] : nil
        )
      end

      # The agent's records up to the end of the load: rates are of the load, and the records of a subject no
      # longer loaded would draw a fall to 0 that is only the load ending. The load tool's own duration, from the
      # start of load, ends it where known: wrk stops sending some way before its process has written its report
      # and exited, which is when mallard marks the load finished.
      def under_load(run)
        phases = run.phases
        sent = run.load&.duration_s
        ends = [phases.load_finished_t, (phases.load_started_t + sent if sent && phases.load_started_t)].compact
        ends.empty? ? run.agent : run.agent.select { |record| record.t <= ends.min }
      end

      # GC runs and GC time per second, from GC.stat's counters.
      def gc_rates(records, width)
        { gc_minor_per_s: "minor_gc_count", gc_major_per_s: "major_gc_count", gc_ms_per_s: "time_ms" }
          .transform_values { |key| increments(records, width) { |record| record.gc&.fetch(key, nil) } }
      end

      # A job worker's queues at each tick; nil for any other run.
      def queue(samples, key)
        points = samples.filter_map { |sample| [sample.t.round(3), sample[key]] if sample[key] }
        thin(points) unless points.empty?
      end

      # nil when the figure was never read (PSS where smaps_rollup could not be).
      def memory(samples, key)
        points = samples.filter_map { |sample| [sample.t, sample[key]] if sample[key] }
        thin(points) unless points.empty?
      end

      # The agent counts requests only through its Rack middleware; a subject started with -- CMD has the agent
      # but not the middleware, and its count stays 0 however many requests it serves: not a measurement.
      def requests_per_second(records, width)
        increments(records, width, &:requests) if records.any? { |record| record.requests.to_i.positive? }
      end

      # Only when there are several: a single process's PSS is the total's.
      def processes(run)
        by_pid = run.processes.group_by(&:pid)
        return [] if by_pid.size < 2

        by_pid.map do |pid, samples|
          Summary::ProcessSeries.new(pid: pid, role: samples.first.role,
                                     pss_kb: memory(samples, :pss_kb))
        end
      end

      # Per second in bins of `width`, summed over processes: what each process's counter rose by since its
      # previous record, over the time since that record. Over that time, not the bin's width: the last bin, cut
      # short by the end of the run, covers less than a width, and dividing by the width drew a drop that never
      # happened. nil when no record carries the counter.
      def increments(records, width, &)
        counted = records.select(&)
        return if counted.empty?

        previous = {} # pid => [t, value] of its latest record
        points = bins(counted, width).filter_map do |members|
          rate = bin_rate(members, previous, &)
          [members.last.t.round(3), rate.round(3)] if rate
        end
        thin(points)
      end

      # The summed rate of the processes in one bin; nil when none has a record before its last to rise from (a
      # process's first record has nothing before it).
      def bin_rate(members, previous)
        from = {}
        members.each do |record|
          reading = [record.t, yield(record)]
          from[record.pid] ||= previous[record.pid] || reading
          previous[record.pid] = reading
        end
        rates = from.filter_map do |pid, (t0, v0)|
          t1, v1 = previous[pid]
          (v1 - v0) / (t1 - t0) if t1 > t0
        end
        rates.sum unless rates.empty?
      end

      # Live heap slots at the end of each bin, summed over the processes seen so far.
      def live_slots(records, width)
        counted = records.select { |record| record.gc&.key?("heap_live_slots") }
        return if counted.empty?

        latest = {}
        points = bins(counted, width).map do |members|
          members.each { |record| latest[record.pid] = record.gc["heap_live_slots"] }
          [members.last.t.round(3), latest.values.sum]
        end
        thin(points)
      end

      # Each GC's pause at its start, from the agent's GC events; nil without them.
      def gc_pauses(run)
        points = Array(run.gc_events).filter_map { |event| [event.t.round(3), event.pause_ms] if event.pause_ms }
        thin(points) unless points.empty?
      end

      # The live set by the measure the verdict judged (LiveSet), summed over processes; nil when nothing
      # measured it.
      def live_set(run, measure)
        points = LiveSet.points(run, measure)
        thin(points.map { |point| [point.t.round(3), point.slots] }) unless points.empty?
      end

      # Records in bins of `width` seconds; each bin's point is stamped at its last record, a time that was
      # really read, so no point falls after load ended. A last bin of less than half a width (the load ended just
      # after a bin began) joins the one before it: a rate over a sliver of time is mostly noise.
      def bins(records, width)
        chunks = records.chunk_while { |a, b| (a.t / width).floor == (b.t / width).floor }.to_a
        return chunks if chunks.size < 2

        *earlier, before, last = chunks
        last.last.t - before.last.t < width / 2 ? [*earlier, before + last] : chunks
      end

      # A long run keeps at most MAX_POINTS per series, each the mean of an equal run of points, so the summary
      # stays small and the chart's shape stays true.
      def thin(points)
        return points if points.size <= MAX_POINTS

        size = (points.size.to_f / MAX_POINTS).ceil
        points.each_slice(size).map do |slice|
          [slice.last[0], (slice.sum { |_, value| value.to_f } / slice.size).round(3)]
        end
      end
    end
  end
end
