# frozen_string_literal: true

require_relative "../value"
require_relative "../run/meta"
require_relative "soak"

module Mallard
  module Summary
    # One dump: its file and size, objects, the newest generation in it, when it was taken (seconds into the run
    # for `mallard heap`, the file's time for dumps given to `heap diff`), how long writing it took, and (mallard's
    # own dumps) the app's RSS as it forked for it.
    HeapDumpInfo = Value.define(:path, :bytes, :objects, :max_generation, :taken_at, :dump_s, :pid, :rss_kb)

    # An allocation site ("file:line") and the class of what it allocated: objects allocated in the window and
    # still alive in the last dump, their memsize_of in bytes; significant when that is at least the run's
    # significant_bytes. path (the top significant sites): one reference path from a GC root to one of its objects,
    # root first, each step "Class (file:line)".
    HeapSite = Value.define(:site, :file, :line, :class, :gem, :count, :bytes, :significant, :path)

    # The same, summed per gem or per class.
    HeapGroup = Value.define(:name, :count, :bytes)

    # Objects alive in the last dump per generation (GC count at allocation), and their bytes.
    HeapGeneration = Value.define(:generation, :count, :bytes)

    # How fast the dumps were read: bytes of dump per second over every pass, and the analysing process's peak RSS.
    # paths_s: the extra passes that found the sample reference paths.
    HeapAnalysis = Value.define(:mb_per_s, :seconds, :bytes, :peak_rss_kb, :paths_s)

    # mallard's own requests to the app, one at a time: how many, how many were answered, their median and slowest
    # times (nil when none was answered), and failures.
    HeapProbeFigures = Value.define(:requests, :answered, :p50_ms, :max_ms, :errors)

    # The app's answers to those requests (`mallard heap` on an HTTP target, to the load's first path) while a dump
    # was being taken (nil when no dump was), and outside the dumps under the same load: the baseline.
    HeapLatency = Value.define(:path, during: HeapProbeFigures, outside: HeapProbeFigures)

    # How `mallard heap` took its dumps: how long it waited for them after the load ended (nil: it did not wait),
    # and why it stopped asking for them, when it did.
    HeapWait = Value.define(:waited_s, :gave_up, :pickup_timeout_s, :dump_timeout_s)

    # Fewer than the three dumps the method needs: how many one process wrote, and why it wrote no more in the run's
    # own words (it stopped asking for them, or a dump failed; nil: the run ended first).
    HeapShortfall = Value.define(:written, :why)

    # `mallard heap` (dumps taken during a soak) and `mallard heap diff A B C` (dumps given): the three-dump method.
    # window: the generations allocated between dump A and dump B (from exclusive, to inclusive); retained: what
    # of them the last dump still holds; sites sorted by retained bytes, each judged significant or not (what the
    # retention comes to is Report::HeapSentences' to say). soak: the soak that ran meanwhile. reason: how the run
    # ended, in the soak's words or the dumps' error; shortfall: the dumps missing, when they are why it failed;
    # traced_load_failed: the load failed with allocation tracing on (the views say what to change).
    # conclusion: the sentence an older summary.json stored instead of the views wording it.
    HEAP_FIGURES = { dumps: [HeapDumpInfo], sites: [HeapSite], gems: [HeapGroup], classes: [HeapGroup],
                     generations: [HeapGeneration], analysis: HeapAnalysis, latency: HeapLatency, wait: HeapWait,
                     soak: Soak, target: Run::TargetInfo, shortfall: HeapShortfall }.freeze
    Heap = Value.define(:kind, :schema_version, :status, :cause, :reason, :traced_load_failed, :window,
                        :retained_count, :retained_bytes, :significant_bytes, :conclusion, :methodology, :tracing,
                        **HEAP_FIGURES) do
      def complete? = status == "complete"

      # Whether this was stored with its conclusion worded (an older mallard's summary.json) rather than as data.
      def worded? = !conclusion.nil?
      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)

      # The window's first generation (from is exclusive: dump A's newest) and its last (dump B's newest); nil
      # when the window is not known. Every view reads the window through these, so none works it out again.
      def window_first = window && (window["from"].to_i + 1)
      def window_last = window&.[]("to")

      # Whether a bucket of `generations`, the generations (previous, newest], overlaps the window.
      def in_window?(previous, newest)
        from = window&.[]("from")
        return false unless from && window_last

        newest > from && (previous.nil? || previous < window_last)
      end
    end
  end
end
