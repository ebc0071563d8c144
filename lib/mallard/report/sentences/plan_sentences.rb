# frozen_string_literal: true

module Mallard
  module Report
    # The sentences of a plan (`mallard plan`), written once for its terminal and HTML views: the count chosen against
    # the limit, the check of that count, the parts the prediction was made of, how it was computed, and that the
    # limit was watched, not enforced.
    class PlanSentences
      include Formatting

      # @param summary [Summary::Plan]
      def initialize(summary)
        @summary = summary
        @plan = summary.plan
        @parts = summary.parts
      end

      def all = [choice, check, parts, how, watched].compact

      # "4 workers × 5 threads fit under 600.0 MiB: predicted peak 420.0 MiB, 450.1 MiB with its margin of 30.1 MiB."
      def choice
        return unless @plan
        return none_fits unless @plan.workers.positive?

        format("%s × %s fit under %s: predicted peak %s, %s with its margin of %s.",
               plural(@plan.workers, "worker"), plural(@plan.threads, "thread"), mib(@plan.limit_kb),
               mib(@plan.predicted_peak_kb), mib(@plan.predicted_peak_kb + @plan.margin_kb), mib(@plan.margin_kb))
      end

      # The chosen count as it ran: its peak against the prediction, and the limit's headroom or its crossing.
      def check
        return unless @plan&.measured_peak_kb

        measured = format("Run at %s (%s req/s in all): peak %s measured, predicted %s (%s).",
                          plural(@plan.workers, "worker"), rate(@plan.rate), mib(@plan.measured_peak_kb),
                          mib(@plan.predicted_peak_kb), signed_pct(@plan.error_pct))
        "#{measured} #{limit}"
      end

      # What the prediction was made of.
      def parts
        return unless @parts

        format("Measured as %s at %s req/s, %s: master %s (USS), shared %s (summed PSS less summed USS), a " \
               "worker's USS peak %s (%s MiB over %s).", @summary.measured_shape, rate(@summary.rate),
               plural(measuring.size, "run"), mib(@parts.master_kb), mib(@parts.shared_kb), mib(@parts.worker_kb),
               mib_range(@parts.worker_min_kb, @parts.worker_max_kb), plural(@parts.workers_seen, "worker"))
      end

      def how = ("How: #{@summary.methodology}." if @summary.methodology)

      def watched
        "The limit was watched against the tree's summed PSS, not enforced: mallard has no cgroup of its own here, " \
          "and a container's charge also counts page cache."
      end

      # One line of the predictions table: the count, its prediction, its margin and whether it fits.
      def prediction_row(prediction)
        [prediction.workers.to_s, mib(prediction.predicted_peak_kb), mib(prediction.margin_kb),
         prediction.fits ? "fits" : "over"]
      end

      # One line of the runs table.
      def run_row(run)
        [run.name, run.shape.to_s, rate(run.rate), mib(run.peak_pss_kb), mib(run.master_kb), mib(run.shared_kb),
         workers_kb(run), run.p99_ms ? format("%.1f ms", run.p99_ms) : "—", ended(run)]
      end

      def run_header = ["run", "shape", "req/s", "peak PSS", "master USS", "shared", "workers' USS peaks", "p99", ""]

      def prediction_header = ["workers", "predicted peak", "margin", ""]

      # How the plan ended, when it did not complete.
      def plan_ending = ending(@summary, outcome: "plan")

      private

      def none_fits
        return "Not one worker fits under #{mib(@plan.limit_kb)}." unless @parts

        format("Not one worker fits under %s: the master and the shared part take %s and a worker up to %s.",
               mib(@plan.limit_kb), mib(@parts.master_kb + @parts.shared_kb + @parts.fixed_spread_kb),
               mib(@parts.worker_max_kb))
      end

      def limit
        return format("It crossed the limit at %s.", mib(@plan.crossed_kb)) if @plan.crossed_kb
        return "It went over the limit." unless @plan.within_limit

        format("It stayed under the limit, %s to spare.", mib(@plan.limit_kb - @plan.measured_peak_kb))
      end

      def measuring = @summary.runs.select { |run| run.role == "measure" }

      def workers_kb(run) = Array(run.worker_peaks_kb).map { |kb| format("%.1f", kb / 1024.0) }.join(", ")

      def ended(run) = run.complete? ? "" : Text.printable("#{run.status}: #{run.reason}")

      def rate(value) = value ? format("%g", value.round(1)) : "—"

      def signed_pct(pct) = pct ? format("%+.1f%% of the measured", pct) : "—"
    end
  end
end
