# frozen_string_literal: true

require_relative "gc_settings"

module Mallard
  module Analysis
    # compare --gc: RUBY_GC_* variable sets worth trying on this app, memory first, each suggested by what the
    # baseline's own GC did under load (its soak's Summary::Gc) and kept with why (the finding and the figures it
    # rests on). Each is an environment for rows like any other; the comparison, not this rule, says which helps.
    #
    # - growth: the heap grew under load (heap pages rose), or under half its slots are live (a boot that allocated
    #   far more than it keeps grew it before the load). Ruby grows it by 1.8× its slots at a time, with no cap; 1.1
    #   with a cap of a tenth of the live slots grows it in small steps from the start, so less of it is empty.
    #   Issue 41 reports RUBY_GC_HEAP_GROWTH_FACTOR=1.1 at −7 … −12% RSS on an app whose boot allocates ten times its
    #   live set.
    # - free: major GCs ran under load, and only a major GC frees empty pages. Ruby keeps up to 65% of the heap free
    #   after one (RUBY_GC_HEAP_FREE_SLOTS_MAX_RATIO 0.65, goal 0.40, min 0.20); 0.20, 0.10 and 0.05 return more of
    #   it. Where no major GC ran no page would be freed (issue 41 reports a max ratio of 0.1 changing nothing then),
    #   so it is not suggested.
    # - malloc: a fifth or more of the GCs were triggered by malloc'ed memory passing its limit; lower limits
    #   (RUBY_GC_MALLOC_LIMIT_MAX 32 MiB → 8 MiB, RUBY_GC_OLDMALLOC_LIMIT_MAX 128 MiB → 32 MiB) free it sooner.
    # - after boot: the boot left far more heap than the app keeps (under half the slots the heap held as the load
    #   began live at its end), or no major GC of the app's ran under load, so what the boot left in the old generation
    #   was never collected (issue 41's app, whose boot allocates ten times its live set: no major GC under a 15 s
    #   load, and Process.warmup after boot 168 → 47 MB RSS on 3.3.8; a full GC and compact 214 → 120 MB on 3.1).
    #   Not an environment but a line once the app has booted (Allocators::AfterBoot): Process.warmup where the Ruby
    #   has it, else a full GC and GC.compact; only where the target has a boot mallard can put the line in.
    # What the app keeps is the live set's last reading (Summary::LiveSet: heap_live_slots after a major GC, when
    # everything unreachable has just been freed), else the live slots as the load ended, which also count the garbage
    # made since the last GC (on the boot-heavy fixture once 702,003 slots, where the boot's heap held 1,278,509).
    # Every variable here is one Ruby 3.1 to 3.4 reads (GcSettings::COMMON); the rows are checked again in the
    # app's own Ruby before they run.
    module GcCandidates
      GROWTH_FACTOR = "1.1"
      # A tenth of the live slots, and no fewer than Ruby's own first heap (10,000 slots).
      GROWTH_CAP_SHARE = 0.1
      GROWTH_CAP_MIN = 10_000
      # Ruby takes the three only in order, min < goal < max ("must be greater than 0.200000", the default min, it
      # said of a max of 0.20 alone): all three are set.
      FREE_SLOTS = { "RUBY_GC_HEAP_FREE_SLOTS_MIN_RATIO" => "0.05", "RUBY_GC_HEAP_FREE_SLOTS_GOAL_RATIO" => "0.10",
                     "RUBY_GC_HEAP_FREE_SLOTS_MAX_RATIO" => "0.20" }.freeze
      MALLOC_LIMITS = { "RUBY_GC_MALLOC_LIMIT_MAX" => (8 * 1024 * 1024).to_s,
                        "RUBY_GC_OLDMALLOC_LIMIT_MAX" => (32 * 1024 * 1024).to_s }.freeze
      MALLOC_SHARE = 0.2
      # Under half the heap's slots live: the heap is mostly empty.
      MOSTLY_FREE = 0.5

      module_function

      # @param activity [Summary::Gc, nil] the baseline soak's GC figures
      # @param live_set [Summary::LiveSet, nil] the baseline soak's live set
      # @param after_boot [String, nil] the action after boot the comparison's rows can run ("warmup", "compact"), nil
      #   where the target has no boot to put one in (Allocators::AfterBoot.available)
      # @return [Array<Summary::GcSuggestion>] each set, suggested or not, with why
      def call(activity, live_set: nil, after_boot: nil)
        return [skipped("gc", "no_gc_figures", {})] unless activity

        live = (live_set&.end || activity.heap_live_slots&.end).to_i
        [growth(activity, live), free(activity), malloc(activity), boot(activity, live, after_boot)]
      end

      def growth(activity, live)
        pages = activity.heap_allocated_pages
        figures = { pages_start: pages&.start, pages_end: pages&.end,
                    live_share: live_share(live, activity.heap_available_slots&.end.to_i) }
        finding = growth_finding(pages, figures[:live_share])
        return skipped("gc-growth", "heap_flat", figures) unless finding

        cap = [(live * GROWTH_CAP_SHARE).round(-3), GROWTH_CAP_MIN].max
        suggested("gc-growth", finding, figures,
                  { "RUBY_GC_HEAP_GROWTH_FACTOR" => GROWTH_FACTOR, "RUBY_GC_HEAP_GROWTH_MAX_SLOTS" => cap.to_s })
      end

      # The heap grew under load, or it is mostly empty: what a boot that allocates far more than it keeps leaves,
      # grown in 1.8× steps before the load began.
      def growth_finding(pages, share)
        return unless pages
        return "heap_grew" if pages.end.to_i > pages.start.to_i

        "heap_mostly_free" if share && share < MOSTLY_FREE
      end

      # The live slots' share of every slot the heap's pages hold, at the end; nil where the run did not read both.
      def live_share(live, available)
        (live.to_f / available).round(3) if available.positive? && live.positive?
      end

      def free(activity)
        majors = activity.major.to_i - forced(activity)
        return skipped("gc-free", "no_majors", { majors: majors }) unless majors.positive?

        suggested("gc-free", "majors_ran", { majors: majors }, FREE_SLOTS)
      end

      # The agent's own full GCs (soak --full-gc-every) are no sign of the app's.
      def forced(activity) = activity.major_by.to_h.fetch("force", 0).to_i

      def malloc(activity)
        by_malloc = activity.minor_by.to_h.fetch("malloc", 0).to_i +
                    activity.major_by.to_h.fetch("oldmalloc", 0).to_i
        runs = activity.runs.to_i
        figures = { malloc_gcs: by_malloc, runs: runs }
        return skipped("gc-malloc", "few_malloc_gcs", figures) unless runs.positive? && by_malloc >= MALLOC_SHARE * runs

        suggested("gc-malloc", "malloc_triggered", figures, MALLOC_LIMITS)
      end

      # The action after boot, where the boot left far more heap than the app keeps or left its old objects uncollected.
      def boot(activity, live, action)
        return skipped("gc-after-boot", "no_boot_hook", {}) unless action

        slots = activity.heap_available_slots&.start.to_i
        majors = activity.major && (activity.major - forced(activity))
        figures = { slots_start: slots, live_end: live, live_share: live_share(live, slots), majors: majors,
                    old_start: activity.old_objects&.start }
        finding = boot_finding(figures)
        return skipped("gc-after-boot", "boot_heap_kept", figures) unless finding

        suggested("gc-after-boot", finding, figures, { Allocators::AfterBoot::SETTING => action })
      end

      def boot_finding(figures)
        return "boot_left_heap" if figures[:live_share] && figures[:live_share] < MOSTLY_FREE

        "old_uncollected" if figures[:majors]&.zero? && figures[:old_start]
      end

      def suggested(name, finding, figures, settings)
        Summary::GcSuggestion.new(name: name, suggested: true, finding: finding, figures: figures, settings: settings)
      end

      def skipped(name, finding, figures)
        Summary::GcSuggestion.new(name: name, suggested: false, finding: finding, figures: figures)
      end

      private_class_method :growth, :growth_finding, :live_share, :free, :forced, :malloc, :boot, :boot_finding,
                           :suggested, :skipped
    end
  end
end
