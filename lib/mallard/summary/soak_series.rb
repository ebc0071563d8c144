# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One process's PSS over time: per-process PSS adds up to the total, where RSS counts shared pages again.
    ProcessSeries = Value.define(:pid, :role, :pss_kb)

    # Every series a view draws of one soak, as [t, value] points on the run's clock (seconds since start).
    # A series that was not measured is nil, never zeros: rps without an agent inside the subject, GC without
    # GC records. bin_s is the width of the bins the rates are counted in; warmup the span left out of the
    # verdict, [from, to] or nil. gc_pause_ms: each GC's pause (with the agent's GC events), gc_ms_per_s: GC time
    # per second in bins (from GC.stat); live_set: the live set the verdict judged (Summary::LiveSet#measure).
    # For a job worker rps counts jobs, and enqueued and oldest_wait_ms are its queues as Redis held them.
    SoakSeries = Value.define(:rss_kb, :pss_kb, :rps, :gc_minor_per_s, :gc_major_per_s, :live_slots, :bin_s,
                              :load_started_t, :warmup, :gc_pause_ms, :gc_ms_per_s, :live_set, :enqueued,
                              :oldest_wait_ms,
                              processes: [ProcessSeries])
  end
end
