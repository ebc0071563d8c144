# frozen_string_literal: true

# A Solid Queue tree's memory per role as analysis decides it (Summary::RolePart): a supervisor that ran no jobs and
# levelled off, its ledger read in RSS only; a dispatcher the agent did not read; a scheduler too short a run to judge;
# workers that grew with the tree's jobs, their ledger read in PSS.
module RoleSummaries
  POINTS = [[1.0, 30_000], [2.0, 30_500], [3.0, 30_600]].freeze

  def roles
    [role("supervisor", 1, 0, verdict("plateaued", 3.1, [-20.4, 26.6]), ledger(1, pss: false)),
     role("dispatcher", 1, nil, verdict("inconclusive", 210.0, [-80.0, 500.0], needed: 12_000), ledger(0)),
     role("scheduler", 1, 0, thin, ledger(1)),
     role("worker", 2, 12_345, verdict("growing", 2048.0, [1500.0, 2600.0]), ledger(2))]
      .map { |hash| Mallard::Summary::RolePart.from_h(hash) }
  end

  private

  def role(name, processes, jobs, verdict, ledger)
    { role: name, processes: processes, jobs: jobs, steady_pss_kb: 30_500, first_pss_kb: 30_000,
      last_pss_kb: 30_600, peak_pss_kb: 30_700, points: POINTS, verdict: verdict, ledger: ledger }
  end

  def verdict(word, slope, interval, needed: nil)
    { memory: word, finding: word, slope_kb_per_1k_jobs: slope, ci: interval, samples: 40, requests_observed: 9_000,
      tolerance_kb: 1024.0, requests_needed: needed, metric: "pss_kb", requests_source: "agent", unit: "jobs" }
  end

  # Too few steady samples to fit a slope.
  def thin = { memory: "inconclusive", finding: "too_thin", samples: 4, requests_observed: 120, unit: "jobs" }

  def ledger(read, pss: true)
    return { processes_read: 0, parts: [] } if read.zero?

    parts = [["ruby live objects", 12_000, 9_000], ["malloc in use", 40_000, 30_000], ["malloc held free", 0, 0],
             ["file-backed", 15_000, 2_000]]
    { processes_read: read, rss_kb: 67_000, pss_kb: (41_000 if pss),
      parts: parts.map { |name, kb, own| { name: name, kb: kb, pss_kb: (own if pss) } } }
  end
end
