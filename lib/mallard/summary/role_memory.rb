# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One role of a job backend's process tree (Analysis::RoleMemory): Solid Queue's supervisor, dispatcher,
    # scheduler or workers, each its processes' summed PSS in KiB: the median over the steady window, at the first and
    # last tick, the peak, and points, [t, pss_kb] over the whole run (at most Analysis::RoleMemory::POINTS).
    # processes: how many processes held the role over the run (a restarted worker counts again).
    RolePart = Value.define(:role, :processes, :steady_pss_kb, :first_pss_kb, :last_pss_kb, :peak_pss_kb, :points)
  end
end
