# frozen_string_literal: true

# A soak's memory cgroup and --memory-limit as analysis leaves them, for the sentences' tests: a cgroup shared with
# six processes besides the subject's three, a limit with headroom, and the same limit crossed.
module ContainerSummaries
  CONTAINER = { version: 1, path: "/jobs/42", processes: 9, tree_processes: 3, samples: 10, steady_kb: 400 * 1024,
                peak_kb: 420 * 1024, peak_anon_kb: 380 * 1024, peak_file_kb: 40 * 1024, peak_tree_pss_kb: 200 * 1024,
                kernel_peak_kb: 500 * 1024, limit_kb: nil, failcnt: 0, oom_kills: 0 }.freeze
  LIMIT = { limit_kb: 600 * 1024, held: "pss_kb", peak_kb: 200 * 1024, headroom_kb: 400 * 1024,
            enforced: false }.freeze
  CROSSED = LIMIT.merge(headroom_kb: -20 * 1024, crossed_t: 12.3, crossed_load_s: 4.1, crossed_kb: 130 * 1024,
                        over_kb: 27 * 1024, crossed_rss_kb: 180 * 1024)
end
