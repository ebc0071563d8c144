# frozen_string_literal: true

require_relative "statistics"
require_relative "gc_figures"
require_relative "live_set"

module Mallard
  module Analysis
    # GC over the run, from the agent's per-GC events when the run has them (every pause, why each GC ran, the
    # heap after it) and from GC.stat at each interval otherwise (counts and total time; per-GC pauses are then
    # nil, and the note says why). Adds to GcFigures' interval figures: runs, pauses, causes, GC's share of wall
    # and CPU time, and whether major GCs take longer as the live set grows — as data, which
    # Report::GcSentences words (what each cause means, the relation with its figures).
    module GcTimeline
      NO_EVENTS = "per-GC pauses and causes need the agent's per-GC timeline, which recorded nothing in this run: " \
                  "counts and time come from GC.stat at each agent interval"
      PER_SLOTS = 100_000

      module_function

      # @param run [Run::SoakRun]
      # @param settings [Array<Summary::GcSetting>]
      # @return [Summary::Gc, nil] nil when nothing inside the subject recorded GC
      def call(run, settings: [])
        base = GcFigures.call(run.agent, script: run.script?)
        events = measured(run, run.gc_events)
        return if base.nil? && events.empty?

        base ||= Summary::Gc.new
        # The wall share is GC.stat's time: the CPU share takes the same, else the events' pauses.
        time_ms = base.time_ms || (events.map(&:pause_ms).grep(Numeric).sum.round(1) if events.any?)
        shares = { wall_share: base.share_of_wall, cpu_share: cpu_share(run, time_ms), settings: settings }
        dropped = measured(run, run.gc_drops).sum(&:count)
        Summary::Gc.from_h(base.to_h.merge(counts(base, events), shares, per_gc(run, events, dropped)))
      end

      # A server's GC events (or drops) from its first agent record on, as GcFigures counts GCs; a script's from its
      # start.
      def measured(run, records)
        records = Array(records)
        return records if run.script? || records.empty?

        first = run.agent.find(&:gc)&.t || run.phases.load_started_t.to_f
        records.select { |record| record.t >= first }
      end

      def counts(base, events)
        return { runs: base.count, minor: base.minor_gc_count, major: base.major_gc_count } if events.empty?

        major = events.count { |event| major?(event) }
        { runs: events.size, minor: events.size - major, major: major }
      end

      # Without events, no pause to relate (major_time_vs_live_set unmeasured, and no majors counted for it).
      def per_gc(run, events, dropped)
        if events.empty?
          return { source: "GC.stat at each agent interval", note: NO_EVENTS, pause_ms: {},
                   dropped: (dropped if dropped.positive?), major_time_vs_live_set: { finding: "unmeasured" } }
        end

        pauses = events.map(&:pause_ms).grep(Numeric)
        majors, minors = events.partition { |event| major?(event) }
        { source: "the agent's GC events", major_by: tally(majors, &:major_by), minor_by: tally(minors, &:gc_by),
          pause_ms: pause_figures(pauses), dropped: dropped,
          major_time_vs_live_set: major_time_vs_live_set(run, majors) }
      end

      def pause_figures(pauses)
        { p50: Statistics.percentile(pauses, 50)&.round(3), p99: Statistics.percentile(pauses, 99)&.round(3),
          max: pauses.max, mean: Statistics.mean(pauses)&.round(3) }
      end

      def tally(events, &cause)
        events.map { |event| cause.call(event) || "unknown" }.tally.sort_by { |_, count| -count }.to_h
      end

      # GC time over the subject's CPU time (the whole tree's, from the sampler) over the same span.
      def cpu_share(run, time_ms)
        cpu = cpu_seconds(run)
        return unless time_ms && cpu&.positive?

        (time_ms / 1000.0 / cpu).round(4)
      end

      def cpu_seconds(run)
        readings = run.totals.select(&:cpu_s)
        return readings.last&.cpu_s if run.script?

        records = run.agent.select(&:gc)
        return if records.empty?

        span = readings.select { |sample| sample.t.between?(records.first.t, records.last.t) }
        span.size < 2 ? nil : span.last.cpu_s - span.first.cpu_s
      end

      # Spearman's rho of each major GC's pause against the live slots after it, and the fitted slope, over the
      # major GCs after warm-up: a server's from the start of the load (every app's live set grows while it boots,
      # and its boot-time majors would rank perfectly), a script's all. A relation is found only when the interval,
      # from rho's permutation distribution, excludes zero; retention is named (by the presenter) only when the live
      # set's own verdict is growing too: a correlation over a handful of majors comes out "rising" by chance 1 time in
      # 20 (a generated Rails app's flat live set did so in a CI run), and the live set's verdict is the test of
      # retention.
      def major_time_vs_live_set(run, majors)
        judged = after_warmup(run, majors)
        pairs = judged.map { |event| [event.heap_live_slots, event.pause_ms] }.select(&:all?)
        ranked = Statistics.spearman(pairs.map(&:first), pairs.map(&:last))
        before_load = majors.size - judged.size
        unless ranked
          return Summary::Correlation.new(majors: pairs.size, before_load: before_load, finding: "unmeasured")
        end

        correlation(ranked, Statistics.linear_fit(pairs.map(&:first), pairs.map(&:last)), before_load)
      end

      def after_warmup(run, majors)
        return majors if run.script?

        window = run.phases.load_window
        majors.select { |event| window.cover?(event.t) }
      end

      def correlation(ranked, fit, before_load)
        Summary::Correlation.new(spearman: ranked.rho.round(3), ci: ranked.ci.map { |bound| bound.round(3) },
                                 p_value: ranked.p_value.round(6), methodology: ranked.methodology,
                                 slope_ms_per_100k_slots: (fit.slope * PER_SLOTS).round(4),
                                 slope_ci: fit.slope_ci.map { |bound| (bound * PER_SLOTS).round(4) },
                                 majors: ranked.n, before_load: before_load, finding: finding(ranked.ci))
      end

      def finding(interval)
        low, high = interval
        return "rising" if low.positive?
        return "falling" if high.negative?

        "no_relation"
      end

      # Whether a GC event was major: 1 from the per-GC hooks, true from GC::Profiler (also ClassGrowth's).
      def major?(event) = [1, true].include?(event.major)

      private_class_method :measured, :counts, :per_gc, :pause_figures, :tally, :cpu_share, :cpu_seconds,
                           :major_time_vs_live_set, :after_warmup, :correlation, :finding
    end
  end
end
