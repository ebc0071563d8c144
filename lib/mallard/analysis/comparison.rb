# frozen_string_literal: true

require_relative "statistics"
require_relative "change"
require_relative "memory_metric"

module Mallard
  module Analysis
    # Compares memory configurations, each run a few times (typically 3, sometimes 2-5), against a baseline:
    # per configuration the median of its valid repeats with an interval (Change.level_ci), and the change
    # against the baseline with its interval (Change). With one run each there is a change but no interval,
    # and the table says so rather than calling it "no difference".
    module Comparison
      STEADY = { pss_kb: "steady_pss_kb", rss_kb: "steady_rss_kb" }.freeze
      # A tree's parts (Summary::TreeFigures) by the run figure each is the median of.
      TREE = { shared_kb: :steady_shared_kb, private_kb: :steady_private_kb, main_pss_kb: :main_pss_kb,
               worker_pss_kb: :worker_pss_kb }.freeze

      # What a comparison found, for the recommendation to decide on: the baseline's name, the memory metric
      # ("steady_pss_kb" or "steady_rss_kb"), the configurations (Summary::Config), the names no other beats (front),
      # the others with who beats them (name => Beating), and each measured configuration's figures by repeat
      # (series: name => { memory:, rps:, p99:, cpu: }), for pairs of configurations set against each other.
      Result = Struct.new(:baseline, :metric, :configs, :front, :beaten, :series, keyword_init: true)
      # One configuration out of the front: the first that beats it, and the figures it is better on (ParetoFront).
      Beating = Struct.new(:by, :on, keyword_init: true)

      module_function

      # @param rows [Array<Summary::Row>] one per configuration
      # @return [Result]
      def call(rows, baseline: "glibc")
        metric = STEADY.fetch(MemoryMetric.for(rows.flat_map { |row| row.runs.map(&:processes) }))
        reference = rows.find { |row| row.name == baseline }
        # A baseline that failed part-way is no reference: nothing is compared with it.
        reference_series = series(reference.runs, metric) if reference && !reference.failed
        configs = rows.map { |row| config(row, metric, row.equal?(reference) ? nil : reference_series) }
        measured = measured_series(rows, metric)
        beaten = ParetoFront.beaten(measured)
        Result.new(baseline: baseline, metric: metric, configs: configs, front: ParetoFront.call(measured, beaten),
                   beaten: beaten.transform_values { |found| Beating.new(**found) }, series: measured).freeze
      end

      # The series of the configurations measured as named: what the front (ParetoFront) is drawn from.
      def measured_series(rows, metric)
        measured = rows.select { |row| row.available && row.verified && !row.failed && row.runs.any? }
        measured.to_h { |row| [row.name, series(row.runs, metric)] }
      end

      def config(row, metric, reference_series)
        own = series(row.runs, metric)
        Summary::Config.new(
          name: row.name, available: row.available, verified: row.verified, failed: row.failed,
          saturation: row.saturation,
          repeats: row.runs.size, unavailable_reason: row.unavailable_reason, output_tail: row.output_tail,
          **estimates(row.runs, own), errors: errors(row.runs), **verdicts(explaining(row)), **yjit(explaining(row)),
          invalid_runs: row.invalid_runs.size, deploy_effort: row.deploy_effort, tree: tree(row.runs),
          vs_baseline: (versus(own, reference_series) if row.runs.any? && reference_series)
        )
      end

      # The tree in parts, where the runs had several processes.
      def tree(runs)
        return if column(runs, :steady_shared_kb).empty?

        Summary::TreeFigures.new(**TREE.transform_values { |key| estimate(column(runs, key)) })
      end

      def estimates(runs, own)
        { steady_rss_kb: estimate(own[:memory], values: true), peak_rss_kb: estimate(column(runs, :peak_rss_kb)),
          rps: estimate(own[:rps]), latency_ms: latency(runs, own), cpu_ms_per_request: estimate(own[:cpu]) }
      end

      # The runs that explain a configuration's figures: its run with the agent where the counted runs had none.
      def explaining(row) = row.instrumented_runs.empty? ? row.runs : row.instrumented_runs

      # YJIT's memory, the median over the runs that say (those with the agent).
      def yjit(runs)
        %i[yjit_code_kb yjit_metadata_kb].to_h { |key| [key, Statistics.median(column(runs, key))&.round] }
      end

      # Memory's and the live set's, run by run; and the ledger's parts, each the median over the runs that have it.
      def verdicts(runs)
        { verdicts: runs.map(&:verdict), live_set_verdicts: runs.map(&:live_set_verdict), ledger_kb: ledger(runs) }
      end

      def ledger(runs)
        ledgers = runs.filter_map(&:ledger_kb)
        return if ledgers.empty?

        ledgers.flat_map(&:keys).uniq.to_h do |name|
          [name, Statistics.median(ledgers.filter_map { |parts| parts[name] })&.round]
        end
      end

      def latency(runs, own)
        Summary::Latency.new(p50: estimate(column(runs, :p50_ms)), p99: estimate(own[:p99]))
      end

      def errors(runs)
        counts = column(runs, :errors)
        counts.sum unless counts.empty?
      end

      def versus(own, reference)
        memory, rps, p99, cpu = %i[memory rps p99 cpu].map { |key| Change.call(own[key], reference[key]) }
        shared = Change.call(own[:shared], reference[:shared]) if own[:shared].any? && reference[:shared].any?
        Summary::Versus.new(rss_pct: memory.pct, rss_pct_ci: memory.ci, significant: memory.significant,
                            rss_finding: memory.finding, rps_pct: rps.pct, rps_pct_ci: rps.ci,
                            rps_significant: rps.significant, rps_finding: rps.finding, p99_pct: p99.pct,
                            p99_pct_ci: p99.ci, p99_significant: p99.significant, p99_finding: p99.finding,
                            cpu_pct: cpu.pct, cpu_pct_ci: cpu.ci, cpu_significant: cpu.significant,
                            cpu_finding: cpu.finding, note: memory.note, shared: shared)
      end

      def estimate(figures, values: false)
        Summary::Estimate.new(median: Statistics.median(figures), ci: Change.level_ci(figures),
                              values: (figures if values))
      end

      # shared: the tree's shared memory, set against the baseline's but no figure of the front (ParetoFront): what a
      # tree shares is already in its summed PSS.
      def series(runs, metric)
        { memory: column(runs, metric.to_sym), rps: column(runs, :rps), p99: column(runs, :p99_ms),
          cpu: column(runs, :cpu_ms_per_request), shared: column(runs, :steady_shared_kb) }
      end

      # Missing figures (a run without load has no rps) are left out rather than counted as zero.
      def column(runs, key)
        runs.map { |run| run[key] }.grep(Numeric)
      end

      private_class_method :ledger, :yjit, :tree, :measured_series, :config, :estimates, :verdicts, :latency, :errors,
                           :versus, :estimate, :series, :column
    end
  end
end
