# frozen_string_literal: true

module Mallard
  module Report
    # The sentences a soak's GC sections share (SoakSentences gives them to the terminal's GcLines and the HTML's
    # GcView): the runs and pauses, what each cause of a GC that occurred means, whether major GCs slow as the live
    # set grows, and the RUBY_GC_* settings, from what the analysis decided. A summary stored with its sentences (an
    # older summary.json) shows them as they were worded then.
    class GcSentences
      include Formatting

      # What Ruby's reasons for a GC mean, for GC.latest_gc_info's :major_by and :gc_by as gc.c's gc_info_decode names
      # them: a Rails developer meets "nofree" or "shady" in a report without having read gc.c.
      MAJOR = {
        "nofree" => "a minor GC left no free slot, so Ruby ran a full GC before growing the heap",
        "oldgen" => "the old (long-lived) objects passed their limit: about twice what the last major GC left",
        "shady" => "objects the GC cannot track writes to (\"shady\": most made by C extensions) passed their " \
                   "limit; every GC must re-check them",
        "oldmalloc" => "memory malloc'ed for old objects passed its limit (RUBY_GC_OLDMALLOC_LIMIT)",
        "force" => "asked for: GC.start, or forced by Ruby itself (e.g. a failed allocation)"
      }.freeze
      MINOR = {
        "newobj" => "no free slot for a new object",
        "malloc" => "memory malloc'ed since the last GC passed its limit (RUBY_GC_MALLOC_LIMIT)",
        "method" => "GC.start called by code",
        "capi" => "a C extension asked for one (rb_gc)",
        "stress" => "GC.stress is on"
      }.freeze
      UNKNOWN = "a cause this Ruby did not report"
      NO_PAUSES = "major-GC time against the live set needs each major GC's pause: the agent's GC events"

      # @param figures [Summary::Gc, nil]
      # @param live_set [String, nil] the live set's verdict, the test of retention
      def initialize(figures, live_set:)
        @gc = figures
        @live_set = live_set
      end

      def runs
        @gc && "#{@gc.runs} runs (#{@gc.minor} minor, #{@gc.major} major)"
      end

      def pauses
        pause = @gc&.pause_ms
        pause&.max && format("p50 %.2f ms · p99 %.2f ms · max %.2f ms", pause.p50, pause.p99, pause.max)
      end

      # [["major by nofree", what it means], …]: each cause of a GC that occurred, major ones first.
      def causes
        stored = @gc&.causes.to_h
        return stored.to_a unless stored.empty?

        [["major by", @gc&.major_by, MAJOR], ["minor by", @gc&.minor_by, MINOR]].flat_map do |label, counts, table|
          counts.to_h.keys.map { |cause| ["#{label} #{cause}", table.fetch(cause.to_s, UNKNOWN)] }
        end
      end

      # Whether each major GC takes longer as the live set grows (Summary::Correlation), with its figures; retention
      # is named only beside a growing live set.
      def correlation
        found = @gc&.major_time_vs_live_set
        return found&.sentence if found.nil? || found.worded?

        case found.finding
        when "rising" then "each major GC takes longer as the live set grows #{figures(found)}#{rising_cause}"
        when "falling"
          "major GCs get shorter as the live set grows #{figures(found)}: pauses follow something else"
        when "no_relation"
          "major-GC time does not follow the live set, or too few major GCs to tell #{figures(found)}"
        else unmeasured(found)
        end
      end

      # Each RUBY_GC_* setting the app ran with, and why its Ruby ignores it when it does.
      def settings
        Array(@gc&.settings).map do |setting|
          line = "#{Text.printable(setting.name)}=#{Text.printable(setting.value.to_s)}"
          setting.ignored? ? "#{line} — #{unread(setting)}" : line
        end
      end

      private

      def figures(found)
        format("(Spearman %<rho>.2f over %<n>d major GCs, 95%% CI %<low>.2f … %<high>.2f, p = %<p>.2g)",
               rho: found.spearman, n: found.majors, low: found.ci[0], high: found.ci[1], p: found.p_value)
      end

      def rising_cause
        return ": something retains objects" if @live_set == "growing"

        "; the live set's own verdict is #{@live_set || 'unjudged'}, so this names no retention"
      end

      # Too few major GCs after warm-up to relate; none at all without the agent's events.
      def unmeasured(found)
        return NO_PAUSES unless found.majors

        before = found.before_load.to_i.positive? ? "; #{found.before_load} before the load started are left out" : ""
        "major-GC time against the live set needs at least 4 major GCs with per-GC events after warm-up, and a live " \
          "set that moved (#{found.majors} here#{before})"
      end

      def unread(setting)
        return setting.ignored if setting.ignored

        ruby = "Ruby #{setting.ruby_version}"
        case setting.unread
        when "per_pool"
          "#{ruby} ignores it: set the per-pool RUBY_GC_HEAP_0_INIT_SLOTS … RUBY_GC_HEAP_4_INIT_SLOTS instead"
        when "modular_gc_only"
          "#{ruby} reads it only when built with modular GC (--with-modular-gc); a standard build ignores it"
        else "#{ruby} does not read #{Text.printable(setting.name)}"
        end
      end
    end
  end
end
