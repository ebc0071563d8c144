# frozen_string_literal: true

require_relative "statistics"
require_relative "significance"
require_relative "change"
require_relative "rank_shift"
require_relative "process_medians"

module Mallard
  module Analysis
    # Two sets of production processes compared, each process one unit (its time-weighted median over the window,
    # ProcessMedians). B against A is the Hodges–Lehmann shift of the logarithms of those medians, with the 95%
    # interval that inverts the Mann–Whitney test (RankShift), mapped back to a % change; it is called a difference
    # only when the whole interval lies beyond ±1% (Significance), as in compare and diff.
    #
    # Why not Welch on logs, as compare uses: compare's figures are a few repeats of one configuration in fresh
    # processes, close to log-normal; a fleet's per-process figures are not — a worker that served the heavy
    # endpoint, a leaking process, a freshly restarted pod pull a mean and a standard deviation far more than
    # they move a rank. The rank interval is distribution-free and exact for continuous data, and robust to such
    # outliers. Its price: it needs a few processes on each side before 95% is reachable at all (4 against 4, 3
    # against 5, 2 against 8); below that there is no interval and the summary says so, rather than calling
    # anything.
    module FleetSummary
      METHOD = "Hodges–Lehmann shift of log per-process medians, Mann–Whitney 95% interval"
      LEVEL = 0.95

      module_function

      # @param run [Run::FleetRun]
      # @param fail_over [Float, nil] --fail-over PCT
      # @return [Summary::Fleet]
      def call(run, fail_over: nil)
        step = run.options["step_s"].to_f
        processes = [run.a, run.b].flat_map { |side| ProcessMedians.call(side.series, step: step, set: side.name) }
        shift = RankShift.call(logs(counted(processes, "B")), logs(counted(processes, "A")), level: LEVEL)
        change = change(shift)
        sets = { a: set(run.a, processes), b: set(run.b, processes) }
        Summary::Fleet.new(
          schema_version: Run::Directory::SCHEMA_VERSION, kind: "fleet", status: "complete", run_dir: run.path,
          **window(run.options), **interval(shift), **sets, change: change,
          fail_over: fail_over && gate(change, fail_over), processes: processes,
          expectation: expectation(run, change, sets.values.map(&:processes))
        )
      end

      def interval(shift)
        { methodology: "#{METHOD} (#{shift.approach})", confidence: shift.confidence,
          smallest_sizes: RankShift.smallest_sizes(level: LEVEL) }
      end

      # --expect: the prediction its meta.json keeps, against this change.
      def expectation(run, change, processes)
        options = run.options
        prediction = Summary::Prediction.from_h(options["expect"])
        return unless prediction

        Expectation.call(prediction, change, processes: processes, window_s: options["since_s"].to_f,
                                             metric: options["metric"],
                                             parts: FleetParts.call(run.parts || {}, step: options["step_s"].to_f),
                                             conditions: FleetConditions.call(run.conditions))
      end

      def window(options)
        { prometheus: options["prometheus"], metric: options["metric"], series: options["series"],
          since_s: options["since_s"], step_s: options["step_s"], start: options["start"], end: options["end"] }
      end

      def counted(processes, name)
        processes.select { |process| process.set == name && !process.excluded }.map(&:median)
      end

      def logs(values)
        values.select(&:positive?).map { |value| Math.log(value) }
      end

      def set(side, processes)
        medians = counted(processes, side.name)
        Summary::FleetSet.new(name: side.name, selector: side.selector, query: side.query, processes: medians.size,
                              excluded: processes.count { |process| process.set == side.name && process.excluded },
                              median: Statistics.median(medians), min: medians.min, max: medians.max)
      end

      def change(shift)
        return Summary::Change.new(finding: "no_interval", note: "no processes to compare") if shift.estimate.nil?

        interval = shift.ci&.map { |bound| percent(bound) }
        Summary::Change.new(pct: percent(shift.estimate), ci: interval,
                            significant: Significance.significant?(interval),
                            finding: Change.finding(interval, Significance::NOISE_PCT),
                            noise_pct: Significance::NOISE_PCT, note: interval ? nil : "too few processes to decide")
      end

      # As diff's --fail-over for memory: B above A by more than the threshold, with the whole interval beyond it;
      # when it is, the change that failed it.
      def gate(change, threshold_pct)
        failed = !change.ci.nil? && change.ci.min > threshold_pct
        return Summary::FailOver.new(threshold_pct: threshold_pct, failed: false) unless failed

        Summary::FailOver.new(threshold_pct: threshold_pct, failed: true, pct: change.pct, ci: change.ci)
      end

      def percent(log_ratio) = (Math.exp(log_ratio) - 1) * 100

      private_class_method :window, :counted, :logs, :set, :change, :gate, :percent, :expectation, :interval
    end
  end
end
