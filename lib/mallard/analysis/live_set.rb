# frozen_string_literal: true

require_relative "leak_verdict"
require_relative "request_axis"

module Mallard
  module Analysis
    # The live set — the Ruby objects still reachable — over the run, and whether it keeps growing with the work
    # done. Memory can grow while the live set stays flat (the allocator keeps freed pages), and the live set can
    # grow while memory has not shown it yet: telling the two apart says where to look.
    #
    # The reading is heap_live_slots right after a major GC, when everything unreachable has just been freed: the
    # agent's per-GC events carry it. A run with fewer than LeakVerdict::MIN_SAMPLES major GCs in the span judged
    # (a short batch script, a server whose majors all ran while it booted) is judged on the live slots after
    # every GC, and says so: the per-GC events are samples too (a 1 s script runs hundreds of minor GCs). After a
    # minor GC the count also holds old objects no major GC has collected yet, an upper bound on the live set: its
    # plateau decides, its growth does not (it may be garbage awaiting the next major GC). Without events (the
    # per-GC timeline off), GC.stat at each interval is all there is, and there heap_live_slots counts the young
    # garbage of the moment too: old objects, which survived several GCs, stand in for the live set (on Rails
    # they saw-tooth by ±15k slots as objects are promoted and dropped, so they decide slowly). Levels are summed
    # over the processes: each process's latest reading, at each reading of any.
    #
    # The verdict is LeakVerdict's rule (batch means, t interval, growth beyond a tolerance) on slots, with
    # min tolerance MIN_TOLERANCE_SLOTS, against requests for a server and seconds for a script.
    module LiveSet
      Point = Struct.new(:t, :requests, :slots, keyword_init: true)

      # A thousand objects over the whole run: what an app builds once, lazily (a cache filled once, a pool),
      # stays under it; one object kept per request does not for long. Not a memory figure: a retained slot may
      # hold 40 bytes or 8 KB of malloc'd string, so slots are judged as a count of objects.
      MIN_TOLERANCE_SLOTS = 1000
      PER_REQUESTS = 1000
      AFTER_MAJOR = "live slots (GC.stat heap_live_slots) after each major GC"
      AFTER_EVERY_GC = "live slots (GC.stat heap_live_slots) after every GC (minor GCs included)"
      OLD_OBJECTS = "old objects at each agent interval (old objects, which survived several GCs, stand in for " \
                    "the live set)"

      module_function

      # @param run [Run::SoakRun]
      # @param from_t [Float, nil] the start of the span judged (a server's steady window); nil: the whole run
      # @return [Summary::LiveSet, nil] nil when nothing measured the heap (no agent inside the subject)
      def call(run, from_t: nil)
        judged = judged_measure(run, from_t)
        judged && forced(run, judged)
      end

      def judged_measure(run, from_t)
        majors, every, old = measures(run).map { |points, _| judged_points(run, points, from_t) }
        return judge(run, majors, AFTER_MAJOR) if majors.size >= LeakVerdict::MIN_SAMPLES
        return few_majors(judge(run, every, AFTER_EVERY_GC), majors) unless every.empty?
        return judge(run, old, OLD_OBJECTS) unless old.empty?

        judge(run, majors, AFTER_MAJOR) unless majors.empty?
      end

      # The full GCs a method call ran over the load (the agent's, for an exact reading, or the app's GC.start): how
      # many, and what they cost, so the run says what reading the live set exactly took.
      def forced(run, live_set)
        window = run.phases.load_window
        pauses = Array(run.gc_events).filter_map do |event|
          event.pause_ms.to_f if event.major_by.to_s == "force" && window.cover?(event.t)
        end
        return live_set if pauses.empty?

        minutes = load_minutes(run, window)
        per_min = (pauses.sum / minutes).round(2) if minutes.positive?
        live_set.with(forced_gcs: pauses.size, forced_gc_ms: Statistics.median(pauses).round(2),
                      forced_gc_ms_per_min: per_min)
      end

      # A run killed before its load finished counts to its last sample.
      def load_minutes(run, window) = ([window.end, run.totals.last&.t.to_f].min - window.begin) / 60.0

      def judge(run, points, measure)
        xs, unit, per = axis(run, points)
        result = LeakVerdict.judge(work: xs, levels: points.map(&:slots), min_tolerance: MIN_TOLERANCE_SLOTS,
                                   per: per)
        Summary::LiveSet.new(verdict: result.state, slope: result.slope, ci: result.ci, unit: unit,
                             samples: result.samples, observed: result.observed, tolerance: result.tolerance,
                             needed: result.needed, methodology: result.methodology, measure: measure,
                             start: points.first&.slots, end: points.last&.slots)
      end

      # Judged on every GC for want of major GCs: how many there were is kept (the presenter says why it matters),
      # and growth there called growing only when at least three major GCs ran and grew beyond the tolerance too
      # (else it may be garbage awaiting the next major GC: unconfirmed). Two are one difference with no spread: a
      # script that kept nothing had a first major early and a second with promoted temporaries not yet collected,
      # 6,100 slots apart, and was called growing.
      def few_majors(live_set, majors)
        confirmed = majors.size >= 3 && majors.last.slots - majors.first.slots > live_set.tolerance
        return live_set.with(majors: majors.size) if live_set.verdict != "growing" || confirmed

        live_set.with(majors: majors.size, unconfirmed: true, verdict: "inconclusive", needed: nil)
      end

      # The live set over the whole run by the measure named, or the first the run has.
      # @return [Array<Point>]
      def points(run, measure = nil)
        found = measures(run).reject { |points, _| points.empty? }
        (found.find { |_, name| name == measure } || found.first)&.first || []
      end

      # The live set over the whole run, summed over processes, by each measure the run has, cleaner first.
      # @return [Array<Array(Array<Point>, String)>]
      def measures(run)
        events = Array(run.gc_events).select(&:heap_live_slots)
        records = run.agent.select { |record| record.gc&.fetch("old_objects", nil) }
        [[summed(events.select { |event| major?(event) }, &:heap_live_slots), AFTER_MAJOR],
         [summed(events, &:heap_live_slots), AFTER_EVERY_GC],
         [summed(settled(records)) { |record| record.gc["old_objects"] }, OLD_OBJECTS]]
      end

      # A major GC recounts old objects from zero while it marks, and marking is incremental: GC.stat read in
      # between says a fraction of the live set (606 of 1.9 million, seen). Such a reading is less than half the
      # process's previous one and is left out; a real fall (a cache cleared) loses only its first reading, since
      # each reading is compared with the one before it, kept or not.
      def settled(records)
        previous = {}
        records.select do |record|
          old = record.gc["old_objects"]
          last = previous[record.pid]
          previous[record.pid] = old
          last.nil? || old * 2 >= last
        end
      end

      # Events say major as 1 or 0 in agent.jsonl; a hand-built one may say true.
      def major?(event) = [1, true].include?(event.major)

      def summed(readings)
        slots = {}
        requests = {}
        readings.map do |reading|
          slots[reading.pid] = yield(reading)
          requests[reading.pid] = reading.requests.to_i
          Point.new(t: reading.t, requests: requests.values.sum, slots: slots.values.sum)
        end
      end

      # A server is judged over its steady window, as memory is; a script over its whole run.
      def judged_points(run, points, from_t)
        return points if run.script?

        window = run.phases.load_window
        start = [from_t || window.begin, window.begin].max
        points.select { |point| point.t >= start && point.t <= window.end }
      end

      # Requests (counted by the agent, else estimated from the load tool's rate) for a server, seconds for a
      # script: [xs, unit, per].
      def axis(run, points)
        return [points.map(&:t), "slots per second", 1] if run.script?

        requests, = RequestAxis.call(points, load: run.load, phases: run.phases, idle: run.idle?)
        [requests, "slots per 1,000 #{run.unit}", PER_REQUESTS]
      end

      private_class_method :judged_measure, :forced, :load_minutes, :judge, :few_majors, :measures, :major?, :settled,
                           :summed, :judged_points, :axis
    end
  end
end
