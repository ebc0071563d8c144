# frozen_string_literal: true

require_relative "leak_verdict"
require_relative "request_axis"

module Mallard
  module Analysis
    # The live set — the Ruby objects still reachable — over the run, and whether it keeps growing with the work
    # done. Memory can grow while the live set stays flat (the allocator keeps freed pages), and the live set can
    # grow while memory has not shown it yet: telling the two apart says where to look.
    #
    # The best reading is heap_live_slots right after a major GC, when everything unreachable has just been
    # freed: the agent's per-GC events carry it. Without them (the per-GC timeline off), GC.stat at each
    # interval is all there is, and there heap_live_slots counts the young garbage of the moment too: old objects,
    # which survived several GCs, stand in for the live set. Levels are summed over the processes: each process's
    # latest reading, at each reading of any.
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
      OLD_OBJECTS = "old objects at each agent interval (old objects, which survived several GCs, stand in for " \
                    "the live set)"

      module_function

      # @param run [Run::SoakRun]
      # @param from_t [Float, nil] the start of the span judged (a server's steady window); nil: the whole run
      # @return [Summary::LiveSet, nil] nil when nothing measured the heap (no agent inside the subject)
      #
      # Both measures are judged when the run has both, and a decided one wins unless the other decided the
      # opposite: the readings after major GCs are the cleaner (a bounded app's live set sat within ±200 of 58,600
      # slots over 25 majors while its old objects at each interval wandered enough to leave it undecided), but a
      # run with few major GCs has too few of them for any power (9 majors are 3 batches, 1 df: a leaky app
      # came out undecided there and growing on its 40 interval readings).
      def call(run, from_t: nil)
        judged = measures(run).filter_map do |points, measure|
          judge(run, judged_points(run, points, from_t), measure) unless points.empty?
        end
        return if judged.empty?

        decided = judged.reject { |live_set| live_set.verdict == "inconclusive" }
        return judged.max_by(&:samples) if decided.empty? || decided.map(&:verdict).uniq.size > 1

        decided.first
      end

      def judge(run, points, measure)
        xs, unit, per = axis(run, points)
        result = LeakVerdict.judge(work: xs, levels: points.map(&:slots), min_tolerance: MIN_TOLERANCE_SLOTS,
                                   per: per)
        Summary::LiveSet.new(verdict: result.state, slope: result.slope, ci: result.ci, unit: unit,
                             samples: result.samples, observed: result.observed, tolerance: result.tolerance,
                             needed: result.needed, method: result.method, measure: measure,
                             start: points.first&.slots, end: points.last&.slots)
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
        majors = Array(run.gc_events).select { |event| major?(event) && event.heap_live_slots }
        records = run.agent.select { |record| record.gc&.fetch("old_objects", nil) }
        [[summed(majors, &:heap_live_slots), AFTER_MAJOR],
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

        requests, = RequestAxis.call(points, load: run.load, phases: run.phases)
        [requests, "slots per 1,000 #{run.unit}", PER_REQUESTS]
      end

      private_class_method :judge, :measures, :major?, :settled, :summed, :judged_points, :axis
    end
  end
end
