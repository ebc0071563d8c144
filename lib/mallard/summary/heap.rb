# frozen_string_literal: true

require_relative "../value"
require_relative "../run/meta"
require_relative "soak"

module Mallard
  module Summary
    # One dump: its file and size, objects, the newest generation in it, when it was taken (seconds into the run
    # for `mallard heap`, the file's time for dumps given to `heap diff`), and how long writing it took.
    HeapDumpInfo = Value.define(:path, :bytes, :objects, :max_generation, :taken_at, :dump_s, :pid)

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

    # The app's answers while a dump was being written (`mallard heap` on an HTTP target): requests mallard sent
    # itself during each dump, their median and slowest times, and failures.
    HeapLatency = Value.define(:requests, :p50_ms, :max_ms, :errors)

    # `mallard heap` (dumps taken during a soak) and `mallard heap diff A B C` (dumps given): the three-dump method.
    # window: the generations allocated between dump A and dump B (from exclusive, to inclusive); retained: what
    # of them the last dump still holds; sites sorted by retained bytes. soak: the soak that ran meanwhile.
    HEAP_FIGURES = { dumps: [HeapDumpInfo], sites: [HeapSite], gems: [HeapGroup], classes: [HeapGroup],
                     generations: [HeapGeneration], analysis: HeapAnalysis, latency: HeapLatency, soak: Soak,
                     target: Run::TargetInfo }.freeze
    Heap = Value.define(:kind, :schema_version, :status, :cause, :reason, :window, :retained_count, :retained_bytes,
                        :significant_bytes, :method, :tracing, **HEAP_FIGURES) do
      def complete? = status == "complete"
      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)
    end
  end
end
