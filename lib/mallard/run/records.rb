# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Run
    # The records of samples.jsonl and agent.jsonl, as the run model holds them. The field names are written
    # here and by the writers (Probe::Sampler, Agent::RecordLine) and read nowhere else.

    # One tick of the sampler: the whole process tree summed. `requests` is the agent's count at the tick;
    # cpu_s the subject's CPU seconds so far, own_cpu_s mallard's with all its children (the subject and the load
    # tool included), machine_cpu_s every CPU's busy seconds since boot.
    TotalSample = Value.define(:t, :rss_kb, :pss_kb, :uss_kb, :swap_kb, :processes, :requests, :cpu_s, :own_cpu_s,
                               :machine_cpu_s) do
      def self.record(time:, readings:, **counters)
        sums = %i[rss_kb pss_kb uss_kb swap_kb].to_h { |key| [key, readings.sum { |r| r.fetch(key) }] }
        { kind: "total", t: time, **sums, processes: readings.size, **counters }
      end
    end

    # One process of the tree at one tick; role is "main" for the process mallard started, else "child". Every few
    # seconds the sampler reads the process's whole smaps rather than its summary, and the tick also has its
    # thread and fiber stacks' RSS and PSS, Ruby's transient heap's (nil where it has none) and its file-backed PSS
    # (Agent::Mappings; nil at the other ticks). title: the process's title ($0, which a server sets to say what the
    # process is: Analysis::TreeShape's roles), on those ticks too. cpu_s: its CPU seconds so far (nil in runs
    # recorded before it was kept): which worker did the work, in a run with no agent to count its requests.
    ProcessSample = Value.define(:t, :pid, :role, :rss_kb, :pss_kb, :uss_kb, :swap_kb, :stacks_kb, :stacks_pss_kb,
                                 :transient_heap_kb, :transient_heap_pss_kb, :file_pss_kb, :title, :cpu_s) do
      def self.record(time:, pid:, role:, memory:, cpu_s: nil, mappings: {}, title: nil)
        { kind: "memory", t: time, pid: pid, role: role, **memory, **mappings, **(title ? { title: title } : {}),
          **(cpu_s ? { cpu_s: cpu_s } : {}) }
      end
    end

    # The memory cgroup the subject sits in, every few seconds (Probe::CgroupMemory): its version and path, what the
    # kernel charges it (usage, anon and file, all in KiB), its own high-water mark (v1's max_usage_in_bytes, v2's
    # memory.peak: since the cgroup was made, so from before the subject too), its limit (nil: none), the times it hit
    # that limit (failcnt) and the OOM kills in it so far; processes: every process in it, tree_processes the
    # subject's own among them. Where the two differ, its figures count other processes too.
    CgroupSample = Value.define(:t, :version, :path, :usage_kb, :peak_kb, :anon_kb, :file_kb, :limit_kb, :failcnt,
                                :oom_kills, :processes, :tree_processes) do
      def self.record(time:, reading:, tree_processes:)
        { kind: "cgroup", t: time, **reading, tree_processes: tree_processes }
      end
    end

    # One interval of the in-process agent: GC.stat as it stood, requests finished so far (cumulative per
    # process), and per-request columns for the requests recorded in the interval. In a job worker the units are
    # jobs: requests counts the jobs finished, busy those running, jobs_failed those that raised (cumulative),
    # and the columns are job_ms (its run), queue_ms (its wait in the queue), failed (1 when it raised) and job_class
    # (its class's index in job_classes: per class, [name, jobs, failed, job_ms], cumulative per process; nil in runs
    # recorded before classes were kept).
    AgentRecord = Value.define(:t, :pid, :gc, :requests, :in_app_ms, :body_ms, :chunks, :requests_sampled, :busy,
                               :jobs_failed, :job_ms, :queue_ms, :failed, :job_class, :job_classes)

    # One tick of a job worker's queues, read from Redis (Probe::SidekiqStats): Sidekiq's own processed and
    # failed counters, jobs waiting, the oldest one's age, and the retry and dead sets.
    JobsSample = Value.define(:t, :processed, :failed, :enqueued, :latency_ms, :retries, :dead)

    # One garbage collection in the subject, as the agent's per-GC timeline saw it: when it started (t, on the
    # run's clock), the time the program was paused for it (the sum of its steps — a lazily swept GC pauses
    # more than once) and its longest step, whether it was major and why (GC.latest_gc_info's major_by and
    # gc_by), and the heap right after it. requests is the process's count when the agent wrote the event.
    # From GC::Profiler (Agent::GcProfilerTimeline) the pause is CPU time, and the longest step, old objects, heap
    # pages and malloc counters are nil.
    GcEvent = Value.define(:t, :pid, :pause_ms, :max_pause_ms, :major, :major_by, :gc_by, :heap_live_slots,
                           :old_objects, :heap_allocated_pages, :malloc_increase_bytes, :oldmalloc_increase_bytes,
                           :requests)

    # A "gc" line of agent.jsonl carries a process's GCs since its previous line, each an array of these fields
    # in this order (a field its source does not give is null); dropped counts GCs the agent's timeline lost.
    GC_EVENT_FIELDS = %i[t pause_ms max_pause_ms major major_by gc_by heap_live_slots old_objects
                         heap_allocated_pages malloc_increase_bytes oldmalloc_increase_bytes].freeze

    # GCs of a process that its per-GC timeline lost since its previous "gc" line (the hooks' ring was full, or
    # GC::Profiler's records went before they were read); t is the line's.
    GcDrop = Value.define(:t, :pid, :count)

    # workload.json: how a job worker's workload ended (its exit, or "stopped by mallard"), and whether the
    # queues drained after it, in how long, with how many jobs left.
    WorkloadEnding = Value.define(:path, :exit, :drained, :drain_s, :left)

    # One process's memory ledger, read inside it every few seconds (Agent::Ledger): RSS and its file-backed part, live
    # Ruby slots' bytes and all Ruby heap pages', malloc in use beyond Ruby's pages (nil where the allocator gives no
    # reading, malloc_note says why), the allocator (source) and its own statistics in bytes by their own names
    # (malloc), YJIT's code region (nil: YJIT off), threads, and the reading's own CPU cost; from the process's
    # mappings, read at mappings_t, its thread and fiber stacks' RSS and PSS, Ruby's transient heap's (nil where it has
    # none), and its PSS in all and file-backed: read inside the app only under MALLARD_MAPPINGS_INTERVAL (Agent::Ledger
    # says why), else joined from the sampler's readings (Analysis::LedgerMappings); nil in runs recorded before either.
    # All in KiB but malloc; requests: the process's work so far.
    LedgerRecord = Value.define(:t, :pid, :requests, :rss_kb, :file_kb, :ruby_live_kb, :ruby_pages_kb,
                                :malloc_in_use_kb, :allocator, :malloc_note, :malloc, :yjit_kb, :threads, :cost_ms,
                                :stacks_kb, :stacks_pss_kb, :transient_heap_kb, :transient_heap_pss_kb, :pss_kb,
                                :file_pss_kb, :mappings_t)

    # The app's Ruby from inside one of its processes (Agent::RubyState), at "boot" (the agent's start), "fork" (a
    # forked child's start) or "end" (its exit): whether YJIT was on then, and YJIT's code region and own allocations
    # in bytes (not at a fork: the parent's); which per-GC timeline the agent runs ("hooks", "profiler"), and why not
    # the hooks when it fell back. jemalloc_options: at boot, under jemalloc, its options as the process took them
    # ("opt.narenas" => 2, …; Agent::MallocStats.options).
    # compact_count: GC.stat(:compact_count) then (nil in runs recorded before it was read). yjit_region_bytes: the
    # address space YJIT reserved for its code, which --yjit-exec-mem-size sets (Agent::YjitRegion; nil: YJIT off).
    RubyState = Value.define(:t, :pid, :at, :version, :yjit, :yjit_code_region_bytes, :yjit_alloc_bytes,
                             :gc_timeline, :hooks_unavailable, :jemalloc_options, :compact_count, :yjit_region_bytes)

    # Which model class each record kind becomes.
    RECORD_KINDS = { "total" => TotalSample, "memory" => ProcessSample, "agent" => AgentRecord,
                     "jobs" => JobsSample, "ledger" => LedgerRecord, "ruby" => RubyState,
                     "cgroup" => CgroupSample }.freeze

    # @param hash [Hash] a "gc" line
    # @return [Array<GcEvent>]
    def self.gc_events(hash)
      Array(hash["events"]).filter_map do |fields|
        next unless fields.is_a?(Array) && fields.first.is_a?(Numeric)

        GcEvent.new(**GC_EVENT_FIELDS.zip(fields).to_h, pid: hash["pid"], requests: hash["requests"])
      end
    end

    # @param hash [Hash] a "gc" line
    # @return [GcDrop, nil] nil when the line lost no GC
    def self.gc_drop(hash)
      count = hash["dropped"]
      return unless count.is_a?(Integer) && count.positive? && hash["t"].is_a?(Numeric)

      GcDrop.new(t: hash["t"], pid: hash["pid"], count: count)
    end

    # @param hash [Hash] one parsed JSON line
    # @return [Array(String, Value), nil] its kind and value; nil for a kind this mallard does not know
    def self.record(hash)
      type = RECORD_KINDS[hash["kind"]]
      return unless type && hash["t"].is_a?(Numeric)

      [hash["kind"], type.from_h(hash)]
    end
  end
end
