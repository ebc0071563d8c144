# frozen_string_literal: true

# A soak's copy-on-write decay as analysis decides it (Summary::SharingDecay): one worker whose sharing fell with a
# knee, one whose sharing did not decay.
module SharingSummaries
  POINTS = [[0, 68_000, 3_000, 1.5], [100, 44_000, 27_000, 4.5], [200, 30_000, 41_000, 7.5],
            [300, 25_000, 46_000, 10.5], [400, 24_000, 47_000, 13.5]].freeze

  def sharing_decay
    points = POINTS.map { |requests, shared, own, t| { requests: requests, shared_kb: shared, private_kb: own, t: t } }
    Mallard::Summary::SharingDecay.from_h(
      workers: [{ pid: 4101, requests_source: "agent", requests: 400, shared_start_kb: 68_000, shared_end_kb: 24_000,
                  kept: 0.3529, finding: "knee", knee_requests: 100, knee_shared_kb: 44_000, points: points },
                { pid: 4102, requests_source: "estimated", requests: 390, shared_start_kb: 14_600,
                  shared_end_kb: 14_500, kept: 0.9932, finding: "no_decay", points: points.first(2) }]
    )
  end
end
