# frozen_string_literal: true

module Mallard
  module Analysis
    # What a comparison keeps of one of its soaks (Summary::RunFigures); the full summary stays in the soak's own
    # directory. Throughput, latency, errors and CPU are the run's headline (Headline): a job worker's are its jobs'.
    module RunFigures
      module_function

      # @param summary [Summary::Soak]
      # @return [Summary::RunFigures]
      def of(summary)
        memory = summary.memory
        work = Headline.of(summary)
        Summary::RunFigures.new(
          steady_rss_kb: memory.steady_rss_kb, steady_pss_kb: memory.steady_pss_kb, peak_rss_kb: memory.peak_rss_kb,
          processes: memory.processes, rps: work.rate, p50_ms: work.latency_ms&.p50, p99_ms: work.latency_ms&.p99,
          errors: work.errors, run_dir: summary.run_dir, verdict: summary.verdict&.memory,
          live_set_verdict: summary.verdict&.live_set, problems: summary.validity&.problems || [],
          cpu_ms_per_request: work.cpu_ms_per_unit,
          ledger_kb: ledger(summary.ledger), **yjit(summary.ruby), **tree(memory.tree)
        )
      end

      # The ledger's parts, KiB by name (nil without a ledger).
      def ledger(ledger) = ledger&.parts&.to_h { |part| [part.name, part.kb] }

      # A tree of several processes in parts (Summary::TreeMemory): shared and private, the master's part, a worker's
      # and each worker's; nothing for one process.
      def tree(tree)
        return {} unless tree

        workers = tree.parts.reject { |part| part.role == "main" }
        { steady_shared_kb: tree.steady_shared_kb, steady_private_kb: tree.steady_private_kb,
          main_pss_kb: tree.main_pss_kb, worker_pss_kb: tree.worker_pss_kb,
          workers_pss_kb: workers.map(&:steady_pss_kb) }
      end

      # YJIT's memory as the app said (meta.json's subject_ruby, Analysis::RubyFigures.inside), in KiB.
      def yjit(ruby)
        inside = ruby || {}
        { yjit_code_kb: "yjit_code_region_bytes", yjit_metadata_kb: "yjit_alloc_bytes",
          yjit_region_kb: "yjit_region_bytes" }.transform_values { |key| inside[key] && (inside[key] / 1024.0).round }
      end
    end
  end
end
