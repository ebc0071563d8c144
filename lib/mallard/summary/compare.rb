# frozen_string_literal: true

require_relative "../value"
require_relative "../run/meta"
require_relative "figures"
require_relative "expectation"

module Mallard
  module Summary
    # What a comparison keeps of one of its soaks; the full summary stays in the soak's own directory.
    # problems: why the run is no measurement (empty when it counts). verdict: memory's; live_set_verdict: the
    # live set's (Summary::LiveSet).
    # cpu_ms_per_request: the subject's CPU time per unit of work (a job worker's per job). ledger_kb: the memory
    # ledger's parts at the run's last reading, KiB by part name (nil without a ledger).
    # YJIT's memory as the app's processes said at their end (nil: YJIT off, or a run without the agent, which cannot
    # ask): yjit_code_kb, its code region's pages that hold code, and yjit_metadata_kb, its own allocations (what it
    # keeps about the code), each summed over the processes; yjit_region_kb, the code region it reserved (the size
    # --yjit-exec-mem-size sets, Ruby's default under on).
    # A tree of several processes in parts (Summary::TreeMemory; nil for one process): steady_shared_kb, the memory
    # in pages shared between its processes (summed PSS less summed USS), steady_private_kb (summed USS), main_pss_kb
    # the master's part, worker_pss_kb a worker's (the median of the workers'), workers_pss_kb each worker's.
    # reforks: for a shape that reforks (-refork, -pitchfork), the reforks its server logged in the run (0: none, a
    # finding, not a failure); nil for other rows.
    RunFigures = Value.define(:steady_rss_kb, :steady_pss_kb, :peak_rss_kb, :processes, :rps, :p50_ms, :p99_ms,
                              :errors, :run_dir, :verdict, :problems, :live_set_verdict, :cpu_ms_per_request,
                              :ledger_kb, :yjit_code_kb, :yjit_metadata_kb, :yjit_region_kb, :steady_shared_kb,
                              :steady_private_kb, :main_pss_kb, :worker_pss_kb, :workers_pss_kb, :reforks)

    class RunFigures
      def valid? = Array(problems).empty?
    end

    # One setting of a configuration as its Ruby (and allocator) took it before any row ran (Probe::SettingsCheck):
    # status "read" (read: the value taken; default: Ruby's own), "ignored" (reason: why, in Ruby's words), "invalid"
    # (reason: jemalloc's rejected pairs), "deprecated" (instead: the names Ruby reads now, as Ruby writes them:
    # RUBY_GC_HEAP_%d_INIT_SLOTS) or "unread" (this Ruby or allocator does not read it). inside: MALLOC_CONF's options
    # as jemalloc took them in a run's process ("opt.narenas" => 2, …; Allocators::JemallocConf.confirm), nil unread.
    # An action after boot is checked as a setting too (name "after_boot", value "warmup" or "compact"; Allocators::
    # AfterBoot): "unread" where the Ruby lacks what it calls, instead then the action that Ruby can run; inside its
    # compactions as the run with the agent counted them ("compact_count" => 1).
    SettingCheck = Value.define(:name, :value, :status, :read, :default, :reason, :instead, :inside) do
      def taken? = status == "read"
    end

    # compare --gc: a RUBY_GC_* variable set the baseline's own GC suggested (suggested: a row of the comparison) or
    # did not, with why (finding: heap_grew, majors_ran, malloc_triggered; or heap_flat, no_majors, few_malloc_gcs,
    # no_gc_figures) and the figures it rests on (Analysis::GcCandidates); Report::CompareSentences words it.
    GcSuggestion = Value.define(:name, :suggested, :finding, :figures, :settings)

    # One configuration as measured: its valid runs, and the runs shown but not counted.
    # deploy_effort: how much a deployment must change to run it (Allocators::DeployEffort); ruby: the
    # Ruby it ran on with --rubies (Target::SubjectRuby#to_h: path, version, allocator_linked…), nil otherwise;
    # yjit: "on" or "off" with --yjit; shape: the Puma shape it served the app in with --shape ("2x5",
    # "2x5-nopreload": PumaShape#label), nil otherwise; jobs_mode: Solid Queue's mode with --modes ("fork", "async":
    # SolidQueueMode#label), nil otherwise.
    # settings_checks: its RUBY_GC_* variables and MALLOC_CONF as its Ruby and allocator took them before any row ran.
    # settings: the environment variables its configuration sets besides LD_PRELOAD; base: the catalog's configuration
    # they were added to (compare --config, --jemalloc-conf, --gc), nil for the catalog's own, so its deploy snippets
    # can be written from the summary alone (Report::DeploySnippets).
    # runs: the counted runs, without the agent where the comparison's figures_from is "clean"; instrumented_runs:
    # then its run with the agent, which verified the configuration inside the process and explains the figures
    # (verdicts, live set, ledger). saturation: failed because the app could not take the load, and what it would
    # take (as a soak's).
    Row = Value.define(:name, :allocator, :available, :unavailable_reason, :verified, :failed, :output_tail,
                       :deploy_effort, :ruby, :yjit, :shape, :jobs_mode, :settings, :base,
                       runs: [RunFigures], invalid_runs: [RunFigures], settings_checks: [SettingCheck],
                       instrumented_runs: [RunFigures], saturation: Saturation)

    # A configuration against the baseline: memory, req/s and p99 as % changes with 95% intervals, and why
    # there are no intervals when there are none.
    # The *_finding members say what each change means in one word (Summary::Change#finding).
    # shared: the tree's shared memory (RunFigures#steady_shared_kb) against the baseline's, by the same rule (nil
    # unless both trees had several processes).
    Versus = Value.define(:rss_pct, :rss_pct_ci, :significant, :rss_finding, :rps_pct, :rps_pct_ci, :rps_significant,
                          :rps_finding, :p99_pct, :p99_pct_ci, :p99_significant, :p99_finding, :cpu_pct, :cpu_pct_ci,
                          :cpu_significant, :cpu_finding, :note, shared: Change)

    # A configuration's tree of several processes in parts, each the median over its counted runs with an interval:
    # the memory shared between its processes and private to each, the master's part and a worker's (RunFigures').
    TreeFigures = Value.define(shared_kb: Estimate, private_kb: Estimate, main_pss_kb: Estimate,
                               worker_pss_kb: Estimate)

    # Latency figures of a configuration across its repeats.
    Latency = Value.define(p50: Estimate, p99: Estimate)

    # A configuration's row of the table. steady_rss_kb holds the comparison's metric (summed PSS when runs
    # had several processes); verdicts the memory verdict of each run that explains it (its run with the agent where
    # the counted runs had none, else each counted run), live_set_verdicts its live set's; ledger_kb: the memory
    # ledger's parts, each the median over those runs, KiB by part name (nil: no run had a ledger), so the table shows
    # which part a configuration shrank. failed, saturation: as its Row's. yjit_code_kb, yjit_metadata_kb: YJIT's
    # memory (RunFigures'), the median over the runs that explain it; nil where YJIT was off or no run could say.
    # tree: its tree in parts, where its runs had several processes (nil otherwise).
    Config = Value.define(:name, :available, :verified, :failed, :repeats, :errors, :unavailable_reason,
                          :output_tail, :verdicts, :invalid_runs, :live_set_verdicts, :deploy_effort, :ledger_kb,
                          :yjit_code_kb, :yjit_metadata_kb,
                          saturation: Saturation, steady_rss_kb: Estimate, peak_rss_kb: Estimate, rps: Estimate,
                          latency_ms: Latency, cpu_ms_per_request: Estimate, vs_baseline: Versus, tree: TreeFigures)

    # One figure's change of a configuration against another, resolved: figure is "memory", "rate", "latency" or
    # "cpu" (Report::Words names each for the run's unit of work), pct and its 95% interval.
    Move = Value.define(:figure, :pct, :ci)

    # A configuration the recommendation did not take: for what it costs against the baseline (costs), or beaten
    # by another (by) on figures it is better on (on, by's changes against it). passed_over: it used less memory
    # than the one recommended. why: the sentence an older summary.json stored instead.
    Rejection = Value.define(:name, :why, :by, :passed_over, costs: [Move], on: [Move])

    # A configuration no other beats on every resolved figure, and what it gains (gained) or gives up (given_up)
    # against the baseline. gains, costs: the sentences an older summary.json stored instead.
    TradeOff = Value.define(:name, :gains, :costs, gained: [Move], given_up: [Move])

    # Of a pair, what the better one gained against the worse, memory aside.
    Difference = Value.define(:better, :worse, on: [Move])

    # Another configuration without a measured cost, set against the recommended one memory to memory (memory: its
    # change against it). relation: "tied" (not told apart, both in the front: deploy effort, else the median,
    # chose), "not_told_apart" (not told apart, it is in the front) or "used_more". differences: what each of the
    # pair is better on than the other; gains: what it gained for the memory it used more, when its changes against
    # the baseline did not say so already.
    Rival = Value.define(:name, :relation, :deploy_effort, memory: Move, differences: [Difference], gains: [Move])

    # How glibc's rows were sized: as on production_cpus (--production-cpus), else as on the subject_cpus here;
    # arenas: how many glibc could create so.
    ArenaSizing = Value.define(:production_cpus, :subject_cpus, :arenas)

    # The decision of a comparison, as data (Analysis::Recommendation); its sentences are the presenter's
    # (Report::RecommendationSentences), and how to deploy it the catalog's (Report::DeploySnippets).
    # name: the configuration to deploy, nil to keep the baseline; ending: why none was chosen ("no_baseline": the
    # baseline did not complete, "no_saving": nothing used detectably less memory, "costs": everything that did cost
    # something). saving: the winner's memory against the baseline; unharmed: the figures measured without a
    # detectable loss ("rate", "latency", "cpu"); deploy_effort: the winner's (Allocators' levels); alternatives: the
    # trade-offs gaining more than memory that memory came before. trade_offs: the configurations no other beats on
    # every resolved figure, when there is more than one way to be better than the baseline. arenas: how glibc's
    # rows were sized, where glibc took part.
    # reason: the sentence an older summary.json stored instead of these.
    Recommendation = Value.define(:name, :reason, :baseline, :ending, :deploy_effort, :unharmed, :alternatives,
                                  saving: Move, rejected: [Rejection], trade_offs: [TradeOff], rivals: [Rival],
                                  arenas: ArenaSizing) do
      # Whether this was stored with its sentences (an older mallard's summary.json) rather than as data.
      def worded? = !reason.nil?
    end

    # An interval --until-resolved left too wide: the configuration's (name), of which figure ("memory" or "cpu"),
    # and its half-width in points (nil: no interval yet).
    Unresolved = Value.define(:name, :figure, :half_width)

    # compare --until-resolved: the half-width asked for, whether every interval got under it, and those that did
    # not (too_wide; Analysis::Resolution), worded by Report::CompareSentences. unresolved: the lines an older
    # summary.json stored instead.
    Resolution = Value.define(:pct, :resolved, :unresolved, too_wide: [Unresolved]) do
      # Whether this was stored with its sentences (an older mallard's summary.json) rather than as data.
      def worded? = !unresolved.nil?
    end

    # One configuration's own part of the agent's cost: its run with the agent against the median of its runs without
    # it, % by figure (rps, cpu per unit of work, p99, rss: the comparison's memory metric).
    AgentPair = Value.define(:name, :rps_pct, :cpu_pct, :p99_pct, :rss_pct)

    # What mallard's agent costs this app (Analysis::AgentCost): each configuration's run with the agent set against
    # its runs without it, pair by pair, pooled over the configurations (Analysis::Change.paired). Each figure's %
    # change, its 95% interval (*_ci, nil with one pair) and finding: rps, cpu (per unit of work), p99, rss (the
    # comparison's memory metric). configurations: how many pairs were pooled; pairs: each one's own changes.
    # unmeasured: why no pair was measured (then there is nothing but this). Report::CompareSentences#agent_cost words
    # it; sentence: the line an older summary.json stored instead. An older summary's pcts came from one run without
    # the agent against the baseline's with it: configurations nil.
    AgentCost = Value.define(:configurations, :rps_pct, :rps_pct_ci, :rps_finding, :cpu_pct, :cpu_pct_ci,
                             :cpu_finding, :p99_pct, :p99_pct_ci, :p99_finding, :rss_pct, :rss_pct_ci, :rss_finding,
                             :unmeasured, :sentence, pairs: [AgentPair])

    # compare --yjit: one YJIT row of a YjitChoice. mode: "on" or a size ("16"); size_mib: its code region, the size
    # asked, or under on what the Ruby reserved in its run with the agent (nil: not read); vs_best: its req/s against
    # the best YJIT row's; vs_off: its req/s against yjit-off's, memory_vs_off: its memory (the comparison's metric)
    # against yjit-off's (nil without a yjit-off row). Each change by the one rule (Analysis::Change).
    YjitOption = Value.define(:name, :mode, :size_mib, vs_best: Change, vs_off: Change, memory_vs_off: Change)

    # compare --yjit: what YJIT's sizes came to among rows that differ only in YJIT (Analysis::YjitChoice). group: their
    # name without the YJIT part ("glibc", "stock/jemalloc"); off: the yjit-off row's name (nil: none measured); best:
    # the YJIT row with the most req/s; choice: the smallest code region whose req/s is not told apart from best's, nil
    # when none is chosen, and then ending says why: "no_gain" (no YJIT row's req/s resolved above yjit-off's: YJIT
    # does not pay for its memory here), "no_interval" (a change it rests on has no interval: one run of a row) or
    # "unmeasured" (no YJIT row has req/s). options: the YJIT rows measured, smallest code region first.
    # Report::YjitSentences words it.
    YjitChoice = Value.define(:group, :off, :best, :choice, :ending, options: [YjitOption])

    # One comparison: how it ended, the table, the recommendation, and the rows it was computed from.
    # figures_from: "clean" when every counted run ran without mallard's code in the app (its work counted from
    # outside) and one run per configuration with the agent explains them (Row#instrumented_runs); "instrumented"
    # when the work can only be counted by the agent (a job worker's jobs), so every run carries it. nil: an older
    # comparison, all of whose runs carried the agent. yjit_choices: compare --yjit's, one per group of rows that differ
    # only in YJIT (empty without a YJIT row). like: compare --like's production conditions and what the lab took of
    # them (nil without).
    Compare = Value.define(:schema_version, :kind, :status, :reason, :cause, :run_dir, :baseline, :metric,
                           :figures_from,
                           target: Run::TargetInfo, configs: [Config], recommendation: Recommendation, rows: [Row],
                           resolution: Resolution, cpu_layout: Cpus::Layout,
                           agent_cost: AgentCost, gc_suggestions: [GcSuggestion], yjit_choices: [YjitChoice],
                           like: Like)

    class Compare
      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)
    end
  end
end
