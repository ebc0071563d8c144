# frozen_string_literal: true

require_relative "../value"
require_relative "../run/outcome"
require_relative "../run/meta"

module Mallard
  module Summary
    # One of a plan's soaks: measuring (role "measure", the measured shape, one per --repeat) or checking (role
    # "check", the chosen worker count). Its memory at the tick its tree's summed PSS peaked under load: that peak, the
    # master's USS and the tree's shared part (summed PSS less summed USS: each page the tree shares, counted once);
    # and each worker's own USS peak over the load (worker_peaks_kb, one per worker). Its served load as the load
    # tool counted it. status and reason: how the soak ended (complete, or why not).
    PlanRun = Value.define(:role, :name, :shape, :rate, :status, :cause, :reason, :run_dir, :peak_pss_kb,
                           :master_kb, :shared_kb, :worker_peaks_kb, :rps, :p99_ms, :errors, :problems) do
      def complete? = status == "complete"
    end

    # The prediction's parts, from the measuring runs: the master's USS and the shared part (means over the runs, at
    # each run's peak), a worker's USS peak (the mean over every worker of every run, worker_kb, with the least and the
    # most seen), and how far the runs' fixed part (master + shared) spread above its mean.
    PlanParts = Value.define(:master_kb, :shared_kb, :worker_kb, :worker_min_kb, :worker_max_kb, :workers_seen,
                             :fixed_spread_kb)

    # What a worker count is predicted to hold: fixed + N × per-worker (peaks), the margin added for the spread (the
    # largest worker seen, and the largest fixed part, above their means), and whether the two together fit the limit.
    PlanPrediction = Value.define(:workers, :predicted_peak_kb, :margin_kb, :fits)

    # The planner's answer: the largest worker count whose predicted peak with its margin fits under the limit
    # (workers 0: none fits), at these threads and the offered load per worker measured (rate in all for that count);
    # and, once run, the peak measured (summed PSS under load), its error against the prediction (% of the measured),
    # and whether the run stayed under the limit (watched, never enforced).
    PlanChoice = Value.define(:workers, :threads, :rate, :limit_kb, :predicted_peak_kb, :margin_kb,
                              :measured_peak_kb, :error_pct, :within_limit, :crossed_kb)

    # `mallard plan`: how many Puma workers of an app fit a memory limit, predicted from a measured shape and then
    # checked by running that count. measured_shape: the shape the parts were measured in ("2x5"), rate its offered
    # load in all; predictions: every worker count up to the first that does not fit (and a few more), for the table.
    Plan = Value.define(:schema_version, :kind, :status, :cause, :reason, :run_dir, :measured_shape, :rate,
                        :methodology, target: Run::TargetInfo, plan: PlanChoice, parts: PlanParts,
                                      predictions: [PlanPrediction], runs: [PlanRun]) do
      def outcome = Run::Outcome.new(status: status, cause: cause, reason: reason)
      def complete? = status == "complete"

      # The chosen shape's label, for its deploy snippets (Report::ShapeSnippets reads #shape); nil when none fits.
      def shape = plan&.workers.to_i.positive? ? "#{plan.workers}x#{plan.threads}" : nil
    end
  end
end
