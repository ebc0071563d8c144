# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # The planner's model (`mallard plan`): a preloaded Puma tree of N workers holds
    #
    #   shared + master + N × per-worker
    #
    # at its peak, where shared is what the tree's processes share (summed PSS less summed USS: each shared page once),
    # master the master's USS, and per-worker a worker's USS peak under the load each worker is offered. Measured in a
    # tree of a few workers, the parts carry over to N: a page the master preloaded is shared however many workers map
    # it, and what a worker copies or allocates for itself is its own. master and shared are read at the tick the
    # tree's summed PSS peaked, where they add up to it exactly with the workers' USS at that tick; a page every worker
    # has written moves from shared to the master's USS as workers are added, and their sum (about the master's RSS)
    # stays. The margin is the spread's upper bound: every worker as large as the largest seen, and the fixed part as
    # in its largest run.
    module Plan
      # The counts the table shows past the chosen one, so that the first that does not fit is in it.
      PAST_CHOICE = 2

      METHOD = "predicted peak = shared + master + N × a worker's USS peak (means over the measuring runs, each read " \
               "at its tree's summed-PSS peak under load); margin = the largest worker's excess over the mean × N + " \
               "the largest run's excess of master + shared over its mean; N fits when peak + margin ≤ the limit"

      module_function

      # One soak's memory as the model reads it: its load window's peak tick of summed PSS, with the master's USS and
      # the shared part at that tick, and each worker's USS peak over the load.
      # @param run [Run::SoakRun]
      # @return [Hash] PlanRun's memory members (empty when the load window holds no tick)
      def memory(run)
        peak = run.load_totals.select(&:pss_kb).max_by(&:pss_kb)
        return {} unless peak

        window = run.phases.load_window
        loaded = run.processes.select { |sample| window.cover?(sample.t) && sample.uss_kb }
        master = loaded.find { |sample| sample.t == peak.t && sample.role == "main" }
        { peak_pss_kb: peak.pss_kb, master_kb: master&.uss_kb, shared_kb: peak.pss_kb - peak.uss_kb,
          worker_peaks_kb: worker_peaks(loaded) }
      end

      # Each worker's (every process but the master's) largest USS, in the order the workers were first seen.
      def worker_peaks(samples)
        samples.reject { |sample| sample.role == "main" }.group_by(&:pid).values.map { |seen| seen.map(&:uss_kb).max }
      end

      # @param runs [Array<Summary::PlanRun>] the measuring runs that completed, with their memory read
      # @return [Summary::PlanParts, nil] nil without a run that has a master and workers
      def parts(runs)
        usable = runs.select { |run| run.master_kb && run.shared_kb && Array(run.worker_peaks_kb).any? }
        return if usable.empty?

        workers = usable.flat_map(&:worker_peaks_kb)
        fixed = usable.map { |run| run.master_kb + run.shared_kb }
        Summary::PlanParts.new(master_kb: mean_kb(usable.map(&:master_kb)), shared_kb: mean_kb(usable.map(&:shared_kb)),
                               worker_kb: mean_kb(workers), worker_min_kb: workers.min, worker_max_kb: workers.max,
                               workers_seen: workers.size, fixed_spread_kb: fixed.max - mean_kb(fixed))
      end

      # @param parts [Summary::PlanParts]
      # @return [Summary::PlanPrediction]
      def predict(parts, workers, limit_kb)
        peak = parts.shared_kb + parts.master_kb + (workers * parts.worker_kb)
        margin = parts.fixed_spread_kb + (workers * (parts.worker_max_kb - parts.worker_kb))
        Summary::PlanPrediction.new(workers: workers, predicted_peak_kb: peak, margin_kb: margin,
                                    fits: peak + margin <= limit_kb)
      end

      # The largest worker count whose predicted peak with its margin fits under the limit; 0 when not even one does.
      # Each worker adds its part and its margin, so the counts that fit are 1 up to this one.
      def choose(parts, limit_kb, most: Target::RackApp::MAX_WORKERS)
        fixed = parts.shared_kb + parts.master_kb + parts.fixed_spread_kb
        each = [parts.worker_max_kb, 1].max # the worker's part with its margin: the largest seen
        ((limit_kb - fixed) / each).floor.clamp(0, most)
      end

      # The counts worth showing: 1 up to the chosen one and PAST_CHOICE beyond it.
      def predictions(parts, limit_kb, chosen)
        (1..[chosen + PAST_CHOICE, Target::RackApp::MAX_WORKERS].min).map { |n| predict(parts, n, limit_kb) }
      end

      # The measured peak against the prediction, as % of the measured.
      def error_pct(predicted_kb, measured_kb)
        return unless predicted_kb && measured_kb&.positive?

        ((predicted_kb - measured_kb) * 100.0 / measured_kb).round(2)
      end

      def mean_kb(values) = Statistics.mean(values).round
    end
  end
end
