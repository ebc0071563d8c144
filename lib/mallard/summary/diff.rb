# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One row of a diff: a metric (soaks) or a configuration (comparisons), A and B, and the change.
    # worse is the direction alone; whether it matters is significant's and the threshold's business.
    DiffRow = Value.define(:name, :a, :b, :repeats, :batches, :pct, :ci, :significant, :finding, :note, :worse,
                           :noise_pct)

    # A run as the diff names it.
    DiffSide = Value.define(:run_dir, :target, :status, :recomputed)

    # The --fail-over gate: the threshold, and whether it failed; when it did, what failed it: the row that failed
    # worst (a diff's, by name; a fleet has one change and no row), its % change and 95% interval, and how many other
    # rows failed too (more). Its words are the kind's presenter's (Report::DiffSentences, FleetSentences).
    # reason: the sentence an older summary.json stored instead.
    FailOver = Value.define(:threshold_pct, :failed, :row, :pct, :ci, :more, :reason) do
      # Whether this was stored with its sentence (an older mallard's summary.json) rather than as data.
      def worded? = !reason.nil?
    end

    # Before (A) and after (B): how one metric changed, by what methodology, and the gate's outcome. unit: what their
    # work was counted in (Report::Words names a job worker's "rps" jobs/s); direction: +1 when a rise is worse, -1
    # when a fall is.
    Diff = Value.define(:kind, :metric, :unit, :direction, :methodology, :only_in_a, :only_in_b,
                        rows: [DiffRow], a: DiffSide, b: DiffSide, fail_over: FailOver)
  end
end
