# frozen_string_literal: true

require_relative "../value"
require_relative "ledger"

module Mallard
  module Summary
    # A role's memory judged against the work (Analysis::MemoryVerdict, the rule and axis the run's own memory verdict
    # uses): its PSS over the steady window against the whole tree's jobs, so a role that runs none (a supervisor, a
    # dispatcher) is judged per 1,000 of the jobs the tree ran: "is it my jobs or the backend". The members are
    # Summary::Verdict's of the same names; finding is memory's word, or "too_thin" where the run was too short to fit a
    # slope at all (memory is then "inconclusive" and the slope nil).
    RoleVerdict = Value.define(:memory, :finding, :slope_kb_per_1k_jobs, :slope_kb_per_1k_s, :ci, :samples,
                               :requests_observed, :tolerance_kb, :requests_needed, :methodology, :metric,
                               :requests_source, :unit) do
      def slope_kb_per_1k = slope_kb_per_1k_jobs || slope_kb_per_1k_s
    end

    # A role's memory ledger (Analysis::RoleLedger): the ledger's parts summed over the role's processes, each at its
    # last reading in the steady window, in RSS (kb) and PSS (pss_kb; nil where the mappings were not read near it);
    # no part is judged (slope, ci and verdict nil: the role's verdict judges its PSS). processes_read: how many of the
    # role's processes the agent read there (the parts are theirs alone: fewer than RolePart#processes says some were
    # not read); pss_kb: those processes' PSS summed as the ledger read it, explained_pct the share of it the named
    # parts account for.
    RoleLedger = Value.define(:processes_read, :rss_kb, :pss_kb, :explained_pct, parts: [LedgerPart])

    # One role of a job backend's process tree (Analysis::RoleMemory): Solid Queue's supervisor, dispatcher,
    # scheduler or workers, each its processes' summed PSS in KiB: the median over the steady window, at the first and
    # last tick, the peak, and points, [t, pss_kb] over the whole run (at most Analysis::RoleMemory::POINTS).
    # processes: how many processes held the role over the run (a restarted worker counts again). jobs: the jobs its
    # processes ran, by the agent's count in each (nil where the agent recorded none of them). verdict: its PSS
    # against the tree's jobs; ledger: its parts (nil for a run without ledger readings; processes_read 0 where the
    # agent read none of this role's processes).
    RolePart = Value.define(:role, :processes, :jobs, :steady_pss_kb, :first_pss_kb, :last_pss_kb, :peak_pss_kb,
                            :points, verdict: RoleVerdict, ledger: RoleLedger)
  end
end
