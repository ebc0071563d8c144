# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # What a comparison predicted for one configuration, kept in a fleet run's meta.json so the run stands on its own
    # (Analysis::Prediction): the compare run it came from, the configuration and its baseline, the comparison's
    # metric (steady_pss_kb or steady_rss_kb) and the change of that metric against the baseline, % with its 95%
    # interval (nil: the comparison had none) and its one-word finding; chosen_by: "recommendation" (the comparison's
    # winner) or "given" (--expect RUN:CONFIG).
    Prediction = Value.define(:run, :config, :baseline, :metric, :pct, :ci, :finding, :chosen_by)

    # The lab's prediction against production's measurement (Analysis::Expectation). verdict: "as_predicted",
    # "smaller_than_predicted", "larger_than_predicted" or "undecided"; why (for undecided): "too_few_processes" (no
    # interval yet), "cannot_tell_from_none" (the interval holds both the prediction and no change), or "no_prediction"
    # (the lab's change had no interval and no estimate); more_processes: about how many more processes, half on each
    # side, would narrow the observed interval enough to decide (nil where it cannot be said), and
    # more_process_hours: those over the fleet's window. metric_note: the lab's metric differs from the fleet's.
    Expectation = Value.define(:verdict, :why, :predicted_pct, :predicted_ci, :observed_pct, :observed_ci,
                               :more_processes, :more_process_hours, :metric_note, prediction: Prediction)
  end
end
