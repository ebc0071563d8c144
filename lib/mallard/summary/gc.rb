# frozen_string_literal: true

require_relative "../value"
require_relative "figures"

module Mallard
  module Summary
    # One RUBY_GC_* variable the subject ran with; unread: why this Ruby (ruby_version) does not read it, in a word
    # (Analysis::GcSettings; nil: it does), worded by Report::SoakSentences#gc_settings. ignored: the sentence an
    # older summary.json stored instead.
    GcSetting = Value.define(:name, :value, :unread, :ruby_version, :ignored) do
      def ignored? = !(unread || ignored).nil?
    end

    # Whether each major GC takes longer as the live set grows: Spearman's rho of major-GC pause against the live
    # slots after it over the major GCs after warm-up (majors; before_load: those left out), with its 95% interval
    # and two-sided p_value from rho's permutation distribution (methodology says exact or drawn), and the fitted slope
    # in ms per 100,000 live slots with its interval. finding: "rising" or "falling" only when the interval excludes
    # zero, else "no_relation"; "unmeasured" below 4 majors (majors nil: no per-GC events at all).
    # Report::GcSentences#correlation words it; sentence: the words an older summary.json stored instead.
    Correlation = Value.define(:spearman, :ci, :p_value, :methodology, :slope_ms_per_100k_slots, :slope_ci, :majors,
                               :before_load, :finding, :sentence) do
      # Whether this was stored with its sentence (an older mallard's summary.json) rather than as data.
      def worded? = !sentence.nil?
    end

    # GC activity over the measured span, summed over the subject's processes. count .. heap_available_slots
    # come from GC.stat at each agent interval (heap_available_slots: every slot the heap's pages hold, live or
    # free); runs, minor, major, pause_ms, major_by and minor_by from the agent's per-GC events when the run has
    # them (source says which), else runs/minor/major from GC.stat and
    # the per-GC figures nil (note says so). wall_share and cpu_share: GC time over the processes' wall time and
    # over the subject's CPU time. major_by: major GCs by why they were major; minor_by: minor GCs by trigger.
    # dropped: GCs the per-GC timeline lost (its ring full, or GC::Profiler's records gone before they were read),
    # which runs, pauses and causes leave out; nil without events. What each cause means is Report::GcSentences';
    # causes: those meanings as an older summary.json stored them ("major by nofree" => a line).
    Gc = Value.define(:count, :minor_gc_count, :major_gc_count, :time_ms, :share_of_wall, :runs, :minor, :major,
                      :wall_share, :cpu_share, :source, :note, :major_by, :minor_by, :dropped, :causes,
                      heap_live_slots: Span, old_objects: Span, heap_allocated_pages: Span,
                      heap_available_slots: Span, pause_ms: Percentiles,
                      major_time_vs_live_set: Correlation, settings: [GcSetting])

    class Gc
      # A summary written before GC events were read counted runs only as GC.stat did.
      def self.from_h(hash)
        figures = super
        return figures unless figures.is_a?(self)

        figures.with(runs: figures.runs || figures.count, minor: figures.minor || figures.minor_gc_count,
                     major: figures.major || figures.major_gc_count,
                     wall_share: figures.wall_share || figures.share_of_wall)
      end
    end

    # The live set — the Ruby objects still reachable — judged like memory (Analysis::LeakVerdict's rule, in
    # slots): its slope per `per` units of work (1,000 requests, or 1 second for a script) with a 95% interval,
    # the tolerance in slots, and the work that would decide an inconclusive one (needed). measure says what was
    # judged: live slots (heap_live_slots) after each major GC; after every GC when too few majors ran (majors: how
    # many did, in the span judged; unconfirmed: growth there that they did not confirm, so the verdict is
    # inconclusive); or old objects at each agent interval without GC events. Report::SoakSentences says what that
    # means; note: those words as an older summary.json stored them. forced_gcs: the full GCs run by a method call
    # (GC.start: the agent's when the live set's natural majors were too few, Agent::FullGc, or the app's own) over
    # the load, with their median pause (forced_gc_ms) and their GC time per minute of load (forced_gc_ms_per_min).
    LiveSet = Value.define(:verdict, :slope, :ci, :unit, :samples, :observed, :tolerance, :needed, :methodology,
                           :measure, :start, :end, :majors, :unconfirmed, :note, :forced_gcs, :forced_gc_ms,
                           :forced_gc_ms_per_min)
  end
end
