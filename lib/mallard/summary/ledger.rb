# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One part of the memory ledger, summed over the subject's processes: its size at the last reading (kb), its
    # slope in KiB per 1,000 units of work (per second for a script) with a 95% interval, and LeakVerdict's word
    # for it (verdict: "growing", "plateaued", "inconclusive"; nil where it could not be judged). kb is nil where
    # the part could not be read (a mimalloc release build keeps no malloc counts); pss_kb is the part in PSS,
    # shared pages split among the processes sharing them (Analysis::LedgerParts.pss; nil in older runs).
    LedgerPart = Value.define(:name, :kb, :pss_kb, :slope, :ci, :verdict)

    # One process's ledger at its first and last reading of the span judged: parts by name in KiB, and RSS; its
    # PSS and its parts in PSS at the last reading that read the mappings (pss_t: when, in the run's seconds).
    LedgerProcess = Value.define(:pid, :rss_kb, :parts, :first_parts, :pss_kb, :pss_parts, :pss_t)

    # The memory ledger: RSS split into parts that answer different questions (Analysis::Ledger), read inside
    # each process every interval_s seconds. explained_pct: the share of RSS the named parts account for (the
    # rest is the "unexplained" part, shown); pss_kb: the processes' PSS summed, what they take together where
    # RSS counts their shared pages once in each; allocator: which malloc the subject ran on; not_read: what the
    # allocator cannot report; cost_ms: a reading's median CPU cost; series: at each reading [t, KiB of each part
    # named in names, in that order] (nil: not read), for the stacked chart.
    # finding: what the app holds (Ruby's live objects and malloc in use), in a word — "app_grows" (it retains
    # memory), "app_flat" (not a leak: what grows is the allocator's), "app_unconfirmed" (malloc in use grows under a
    # flat live set: not decided) or "app_undecided"; nil when it could not be read; app_slope: its slope, in unit.
    # Report::LedgerSentences words it. sentence: the verdict in words an older summary.json stored instead.
    Ledger = Value.define(:readings, :interval_s, :allocator, :not_read, :explained_pct, :pss_kb, :cost_ms, :unit,
                          :finding, :app_slope, :sentence, :names, :series,
                          parts: [LedgerPart], processes: [LedgerProcess]) do
      # Whether this was stored with its sentence (an older mallard's summary.json) rather than a finding.
      def worded? = !sentence.nil?
    end
  end
end
