# frozen_string_literal: true

require_relative "../value"
require_relative "../run/meta"
require_relative "figures"
require_relative "soak_series"
require_relative "../analysis/memory_metric"

module Mallard
  module Summary
    # The leak verdict of a soak (Analysis::LeakVerdict), with what it was computed on.
    Verdict = Value.define(:memory, :slope_kb_per_1k_requests, :ci, :samples, :requests_observed, :tolerance_kb,
                           :requests_needed, :method, :metric, :requests_source, :warmup_samples, :warmup_end_s)

    # One process's memory over the run.
    ProcessMemory = Value.define(:pid, :role, :peak_rss_kb, :final_rss_kb)

    # Memory over the steady window; metric names the figure verdicts and comparisons use (pss_kb when the
    # tree had several processes, else rss_kb).
    Memory = Value.define(:steady_rss_kb, :steady_pss_kb, :peak_rss_kb, :final_rss_kb, :samples, :processes,
                          :metric, per_process: [ProcessMemory])

    class Memory
      def steady_kb = Analysis::MemoryMetric.pss?(metric) ? steady_pss_kb : steady_rss_kb
    end

    # What the load tool saw. errors: failed requests of every kind; attempts: requests answered or not;
    # error_pct: the errors' share of the attempts.
    Load = Value.define(:tool, :requests, :duration_s, :rps, :errors, :attempts, :error_pct, :errors_by_kind,
                        :status_codes,
                        :interrupted, latency_ms: Percentiles)

    # What the agent's middleware saw inside the app, and what that says (flags).
    App = Value.define(:requests_recorded, :chunks_per_response, :flags, in_app_ms: Percentiles,
                                                                         body_ms: Percentiles)

    # GC activity over the measured span, summed over the subject's processes.
    Gc = Value.define(:count, :minor_gc_count, :major_gc_count, :time_ms, :share_of_wall,
                      heap_live_slots: Span, old_objects: Span, heap_allocated_pages: Span)

    # A script run to completion.
    Script = Value.define(:wall_s, :exit_status, :peak_rss_kb, :final_rss_kb)

    # Whether the run is a measurement: problems found (none: valid), and the figures they were judged on:
    # requests per serving process, and the cores other processes on the machine used while load ran.
    Validity = Value.define(:problems, :requests_per_process, :foreign_cores)

    class Validity
      def valid? = Array(problems).empty?
    end

    # One soak: how it ended, the verdict, every figure and every series the views show.
    Soak = Value.define(:schema_version, :kind, :status, :reason, :cause, :run_dir, :skipped_lines,
                        target: Run::TargetInfo, allocator: Run::AllocatorInfo, verdict: Verdict, memory: Memory,
                        load: Load, app: App, gc: Gc, script: Script, validity: Validity, series: SoakSeries)

    class Soak
      # A summary of schema 1 named its memory metric only in its verdict.
      def self.from_h(hash)
        summary = super
        summary.memory.metric ||= summary.verdict&.metric if summary&.memory
        summary
      end

      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)
      def complete? = status == "complete"
      def valid? = validity.nil? || validity.valid?
    end
  end
end
