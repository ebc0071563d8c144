# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # What a comparison predicted for one configuration, kept in a fleet run's meta.json so the run stands on its own
    # (Analysis::Prediction): the compare run it came from, the configuration and its baseline, the comparison's
    # metric (steady_pss_kb or steady_rss_kb) and the change of that metric against the baseline, % with its 95%
    # interval (nil: the comparison had none) and its one-word finding; chosen_by: "recommendation" (the comparison's
    # winner) or "given" (--expect RUN:CONFIG). ledger_kb: the memory ledger's parts, the configuration's less the
    # baseline's (KiB a process, by part name; nil where the comparison kept no ledger for either).
    Prediction = Value.define(:run, :config, :baseline, :metric, :pct, :ci, :finding, :chosen_by, :ledger_kb)

    # One memory ledger part, lab against production: the change the comparison predicted (nil: no ledger there) and
    # the one the fleet shows, B less A, KiB a process; gap_kb the second less the first.
    PartGap = Value.define(:part, :predicted_kb, :observed_kb, :gap_kb)

    # The lab's prediction against production's measurement (Analysis::Expectation). verdict: "as_predicted",
    # "smaller_than_predicted", "larger_than_predicted" or "undecided"; why (for undecided): "too_few_processes" (no
    # interval yet), "cannot_tell_from_none" (the interval holds both the prediction and no change), or "no_prediction"
    # (the lab's change had no interval and no estimate); more_processes: about how many more processes, half on each
    # side, would narrow the observed interval enough to decide (nil where it cannot be said), and
    # more_process_hours: those over the fleet's window. metric_note: the lab's metric differs from the fleet's.
    # parts: each ledger part, predicted against observed; differing_part: where the fleet disagrees, the part whose
    # change is furthest from the prediction (nil where they agree, or the lab kept no ledger).
    Expectation = Value.define(:verdict, :why, :predicted_pct, :predicted_ci, :observed_pct, :observed_ci,
                               :more_processes, :more_process_hours, :metric_note, :differing_part,
                               prediction: Prediction, parts: [PartGap])
  end
end
