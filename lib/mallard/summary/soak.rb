# frozen_string_literal: true

require_relative "../value"
require_relative "../run/meta"
require_relative "figures"
require_relative "soak_series"
require_relative "gc"
require_relative "ledger"
require_relative "container"
require_relative "sharing_decay"
require_relative "role_memory"
require_relative "job_class"
require_relative "../analysis/memory_metric"

module Mallard
  module Summary
    # The verdict of a soak in two parts: memory (Analysis::LeakVerdict on RSS or PSS, nil for a script, which has
    # no steady state), with what it was computed on, and live_set (the same rule on the live Ruby heap, see
    # LiveSet); overall is the run's one word and finding which case of joining the two it is
    # (Analysis::VerdictConclusion::Decision), worded by Report::SoakSentences#conclusion. conclusion: the sentence an
    # older summary.json stored instead of a finding.
    # For a job worker the x axis is jobs: the slope is slope_kb_per_1k_jobs (slope_kb_per_1k_requests stays
    # nil), and requests_observed and requests_needed count jobs; unit says which. An idle soak's (soak --idle) is
    # seconds: slope_kb_per_1k_s, unit "seconds idle". app_held and allocator_held:
    # the memory ledger's words for what the app holds (Ruby live objects, malloc in use) and what the allocator
    # holds free (Analysis::Ledger), nil without a ledger. overall comes from the parts (Analysis::VerdictConclusion):
    # app_own is the app's own memory's state, rising the ledger part that rose most while the run was undecided,
    # decide_units the run length (work after warm-up) that would decide it and decide_minutes how far off that is.
    Verdict = Value.define(:memory, :slope_kb_per_1k_requests, :slope_kb_per_1k_jobs, :slope_kb_per_1k_s, :ci, :samples,
                           :requests_observed, :tolerance_kb, :requests_needed, :methodology, :metric, :requests_source,
                           :warmup_samples, :warmup_end_s, :unit, :live_set, :overall, :finding, :conclusion,
                           :app_held, :allocator_held, :app_own, :rising, :decide_units, :decide_minutes)

    class Verdict
      # Units of work: "requests", or "jobs" for a job worker; summaries written before unit existed are a web app's.
      def initialize(unit: nil, **members)
        super(unit: unit || "requests", **members)
      end

      def slope_kb_per_1k = slope_kb_per_1k_jobs || slope_kb_per_1k_s || slope_kb_per_1k_requests

      # Whether this was stored with its sentence (an older mallard's summary.json) rather than a finding.
      def worded? = !conclusion.nil?
    end

    # One process's memory over the run.
    ProcessMemory = Value.define(:pid, :role, :peak_rss_kb, :final_rss_kb)

    # One process's part of a tree over the steady window: the median of its PSS (the parts add up to the tree's), over
    # its samples there. role: "main" for the process mallard started (Puma's master), else "child" (a worker).
    ProcessPart = Value.define(:pid, :role, :steady_pss_kb, :samples)

    # A tree of several processes over the steady window (Analysis::ProcessParts): its memory in pages shared between
    # its processes (summed PSS less summed USS: each shared page once) and private to each (summed USS), the master's
    # part and a worker's (the median of the workers' own), and every process's part; each a median over the steady
    # ticks, in KiB.
    TreeMemory = Value.define(:steady_shared_kb, :steady_private_kb, :main_pss_kb, :worker_pss_kb,
                              parts: [ProcessPart])

    # Memory over the steady window; metric names the figure verdicts and comparisons use (pss_kb when the
    # tree had several processes, else rss_kb). tree: a tree of several processes in parts (nil for one process).
    Memory = Value.define(:steady_rss_kb, :steady_pss_kb, :peak_rss_kb, :final_rss_kb, :samples, :processes,
                          :metric, per_process: [ProcessMemory], tree: TreeMemory)

    class Memory
      def steady_kb = Analysis::MemoryMetric.pss?(metric) ? steady_pss_kb : steady_rss_kb
    end

    # What the load tool saw. errors: failed requests of every kind; attempts: requests answered or not;
    # error_pct: the errors' share of the attempts. cpu_s: the subject's CPU time across the load, and
    # cpu_ms_per_request that over the requests (Analysis::CpuCost). An open loop (--rate) names its target_rate, the
    # share of requests that left later than their schedule (late_pct: the app could not keep up) and the latest.
    # neighbours: the copies of the app run and loaded alike beside it (--neighbours; nil: none), whose figures are
    # none of these.
    Load = Value.define(:tool, :requests, :duration_s, :rps, :errors, :attempts, :error_pct, :errors_by_kind,
                        :status_codes, :interrupted, :cpu_s, :cpu_ms_per_request, :target_rate, :late_pct,
                        :max_late_ms, :neighbours, latency_ms: Percentiles)

    # `--concurrency auto`'s ramp (Analysis::ConcurrencyChoice): each step, and the connections chosen (nil: no step
    # was served cleanly), with that step's req/s and p99, the best clean req/s, and the p99 a clean step stays under.
    Ramp = Value.define(:chosen, :rps, :p99_ms, :best_rps, :latency_limit_ms, :step_s, steps: [Run::RampStep])

    # The median request from outside (the load tool's) in parts (Analysis::AppFigures): the median of each request's
    # time in the server (server_ms) and, of its parts, the wait before the app got it (nil when the client did not
    # say when a request left), the app's own time and the body's; rest_ms is what the outside adds to the server.
    Outside = Value.define(:external_ms, :server_ms, :queue_ms, :in_app_ms, :body_ms, :rest_ms)

    # What the agent's middleware saw inside the app, and what that says (flags).
    App = Value.define(:requests_recorded, :chunks_per_response, :flags, in_app_ms: Percentiles,
                                                                         body_ms: Percentiles, queue_ms: Percentiles,
                                                                         outside: Outside)

    # A job worker's jobs: finished and failed (the agent's exact counts), the rate over the load window,
    # each job's wait in its queue and its run (sampled percentiles), allocations per job (per process: GC.stat
    # cannot tell threads apart), the worker's CPU time and its share per job (Analysis::CpuCost), the queues as Redis
    # held them, Sidekiq's own lagging counters, and how the
    # workload ended and the queues drained.
    Jobs = Value.define(:processed, :failed, :failed_pct, :per_s, :allocations_per_job, :max_enqueued,
                        :oldest_wait_ms_max, :redis_processed, :redis_failed, :workload_exit, :drained, :drain_s,
                        :left, :cpu_s, :cpu_ms_per_job, queue_latency_ms: Percentiles, job_ms: Percentiles)

    # A script run to completion.
    Script = Value.define(:wall_s, :exit_status, :peak_rss_kb, :final_rss_kb)

    # Whether the run is a measurement: problems found (none: valid), and the figures they were judged on:
    # requests per serving process (the agent's count), or where no agent counted them each worker's CPU seconds
    # while load ran (only workers there for all of it), and the cores other processes on the machine used then.
    Validity = Value.define(:problems, :requests_per_process, :cpu_s_per_worker, :foreign_cores)

    class Validity
      def valid? = Array(problems).empty?
    end

    # A load that failed on timeouts (Analysis::Saturation): the app was saturated. timeouts: requests the load tool
    # gave up on, after timeout_s; served_rps: what the app answered meanwhile, to concurrency connections (nil: an
    # open loop); suggest_concurrency and suggest_rate: a load it would serve.
    Saturation = Value.define(:timeouts, :timeout_s, :served_rps, :concurrency, :suggest_concurrency, :suggest_rate)

    # One soak: how it ended, the verdict, every figure and every series the views show.
    # headroom_kb: what the allocator holds free at the end (Analysis::Ledger), the most an allocator change can win.
    # saturation: a failed load's timeouts, when the app was saturated (its words: Report::SoakSentences#reason).
    # ruby: the app's Ruby (meta.json's subject_ruby: version, YJIT on or off from inside, YJIT's memory).
    # container: the subject's memory cgroup as the kernel charges it (nil where none could be read); memory_limit:
    # --memory-limit as watched (nil without it). sharing_decay: each worker's shared and private memory against the
    # requests it served (Analysis::SharingDecay; nil for a tree without workers). roles: a job backend's tree by role
    # (Analysis::RoleMemory: Solid Queue's supervisor, dispatcher, scheduler, workers), nil for other runs.
    # job_classes: a job worker's figures per job class (Analysis::JobClasses), nil for other runs.
    Soak = Value.define(:schema_version, :kind, :status, :reason, :cause, :run_dir, :skipped_lines, :headroom_kb,
                        :ruby,
                        target: Run::TargetInfo, allocator: Run::AllocatorInfo, verdict: Verdict, memory: Memory,
                        load: Load, jobs: Jobs, app: App, gc: Gc, live_set: LiveSet, script: Script,
                        validity: Validity, cpu_layout: Cpus::Layout,
                        series: SoakSeries, ledger: Ledger, until_decided: Run::UntilDecided, ramp: Ramp,
                        saturation: Saturation, container: Container, memory_limit: MemoryLimit,
                        sharing_decay: SharingDecay, roles: [RolePart], job_classes: [JobClass])

    class Soak
      # A summary of schema 1 named its memory metric only in its verdict.
      def self.from_h(hash)
        summary = super
        return summary unless summary&.memory && summary.memory.metric.nil?

        summary.with(memory: summary.memory.with(metric: summary.verdict&.metric))
      end

      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)
      def complete? = status == "complete"
      def valid? = validity.nil? || validity.valid?
    end
  end
end
