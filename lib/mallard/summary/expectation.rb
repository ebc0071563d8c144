# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One method and path's share of the requests (0 to 1), as the exporter names them (Exporter::RequestCounts: ids
    # as :id, past its paths "other") or as a lab's load requested them (its paths' GETs).
    RequestShare = Value.define(:method, :path, :share)

    # What processes ran in, as a lab and production can both say it: the Ruby's version and whether YJIT was on, the
    # CPUs a process may run on, Puma's pool threads in a worker and the workers in a tree, the malloc (glibc,
    # jemalloc…), the request mix (RequestShare, largest first) and the rate (requests a second a tree served: a lab
    # run's median, production's busiest minute), the requests a tree had served when its memory was read (a lab
    # run's, the median over the runs; production's, each tree's since it started, the median over the trees at the
    # window's end: a heap that creeps follows them), and the trees of the app on one host, which share its CPUs (a
    # lab's run: 1 and its --neighbours; production: the exporters on one host's address). Any of them nil (the mix
    # empty) where it was not recorded (an older run) or not served (an exporter without it).
    Conditions = Value.define(:ruby, :yjit, :cpus, :threads, :workers, :malloc, :rate, :served, :trees_per_host,
                              mix: [RequestShare])

    # One condition the lab's run and production's processes differ in: its name (a member of Conditions) and each
    # side's value. For the request mix, the method and path whose shares differ most ("GET /users/:id") and each
    # side's share of it.
    ConditionGap = Value.define(:name, :lab, :production, :path)

    # Part of production's requests compare --like could not send: its share, and why: "method" (not a GET), "id" (a
    # path with an id the exporter replaced by :id), "other" (past the exporter's paths) or "small" (a path under 1%).
    MixLeft = Value.define(:reason, :share)

    # What a comparison predicted for one configuration, kept in a fleet run's meta.json so the run stands on its own
    # (Analysis::Prediction): the compare run it came from, the configuration and its baseline, the comparison's
    # metric (steady_pss_kb or steady_rss_kb) and the change of that metric against the baseline, % with its 95%
    # interval (nil: the comparison had none) and its one-word finding; chosen_by: "recommendation" (the comparison's
    # winner) or "given" (--expect RUN:CONFIG). conditions: what the configuration ran in, in the lab (Conditions).
    # ledger_kb: the memory ledger's parts, the configuration's less the
    # baseline's (KiB a process, by part name; nil where the comparison kept no ledger for either).
    Prediction = Value.define(:run, :config, :baseline, :metric, :pct, :ci, :finding, :chosen_by, :ledger_kb,
                              conditions: Conditions)

    # One memory ledger part, lab against production: the change the comparison predicted (nil: no ledger there) and
    # the one the fleet shows, B less A, KiB a process; gap_kb the second less the first.
    PartGap = Value.define(:part, :predicted_kb, :observed_kb, :gap_kb)

    # The lab's prediction against production's measurement (Analysis::Expectation). verdict: "as_predicted",
    # "smaller_than_predicted", "larger_than_predicted" or "undecided"; why (for undecided): "too_few_processes" (no
    # interval yet), "cannot_tell_from_none" (the interval holds both the prediction and no change), or "no_prediction"
    # (the lab's change had no interval and no estimate); more_processes: about how many more processes, half on each
    # side, would narrow the observed interval enough to decide (nil where it cannot be said), and
    # more_process_hours: those over the fleet's window. metric_note: the lab's metric differs from the fleet's.
    # conditions: production's (Conditions, from the exporter), and differing: those where lab and production are
    # known to differ; duration_alike_s: where the lab's runs served fewer requests than production's trees had, the
    # seconds of load that would serve as many at the lab's rate (nil otherwise). parts: each ledger part, predicted
    # against observed; differing_part: where the fleet disagrees, the part whose change is furthest from the
    # prediction (nil where they agree, or the lab kept no ledger).
    # compare --like: the Prometheus and selector production's conditions were read from, those conditions, what the
    # lab took of them ({"threads" => 16, "workers" => 2, "cpus" => 4}) and what it still differs in; mix: the request
    # mix the lab's load took (empty where the command line gave its paths or production served none), mix_left: what
    # of production's it could not take.
    Like = Value.define(:prometheus, :selector, :applied,
                        production: Conditions, differing: [ConditionGap], mix: [RequestShare], mix_left: [MixLeft])

    Expectation = Value.define(:verdict, :why, :predicted_pct, :predicted_ci, :observed_pct, :observed_ci,
                               :more_processes, :more_process_hours, :metric_note, :differing_part, :duration_alike_s,
                               prediction: Prediction, conditions: Conditions, parts: [PartGap],
                               differing: [ConditionGap])
  end
end
