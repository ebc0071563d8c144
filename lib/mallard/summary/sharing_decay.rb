# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One tick of a worker (Analysis::SharingDecay): the requests it had served, and its memory shared with other
    # processes (RSS − USS) and its own (USS), in KiB; t: the tick on the run's clock.
    SharingPoint = Value.define(:requests, :shared_kb, :private_kb, :t)

    # One worker's copy-on-write decay: its shared memory at its first and last tick, the share of it kept
    # (end / start), the requests it served (requests_source: "agent", its own count, or "estimated", the load tool's
    # average rate shared evenly among the workers), and what the curve says (finding: "knee", "steady_fall",
    # "no_decay" or "too_few_points"); knee_requests and knee_shared_kb: where the knee is, and what a refork there
    # would have kept. points: its ticks (at most Analysis::SharingDecay::MAX_POINTS of them).
    WorkerSharing = Value.define(:pid, :requests_source, :requests, :shared_start_kb, :shared_end_kb, :kept,
                                 :finding, :knee_requests, :knee_shared_kb, points: [SharingPoint])

    # Every worker of a soak's tree, for copy-on-write decay (nil in a summary whose tree had no workers).
    SharingDecay = Value.define(workers: [WorkerSharing])
  end
end
