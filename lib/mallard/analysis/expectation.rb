# frozen_string_literal: true

module Mallard
  module Analysis
    # Whether production agrees with what the lab predicted (fleet --expect): the fleet's change of B against A, with
    # its interval, against the comparison's change for the configuration B runs. Pure.
    #
    # The two intervals decide, as the change rule decides everything else:
    # - they overlap, and the fleet's interval does not also hold no change while the lab's excludes it: as predicted;
    # - they overlap and the fleet's holds no change as well as the prediction: undecided (it cannot tell the two
    #   apart yet), with about how many more processes would — an interval narrows with the square root of the
    #   processes counted, so (half-width now / half-width needed)² as many, the half-width needed being half the
    #   predicted change;
    # - they do not overlap: smaller than predicted where the fleet's whole interval lies on no change's side of the
    #   lab's, else larger (a prediction of no change that the fleet's interval excludes is larger).
    # No interval for the fleet yet (too few processes): undecided, with the processes the rank interval needs at
    # least. A prediction without an interval is held as its point.
    module Expectation
      # The comparison's metric and the fleet's that measure the same memory.
      SAME_METRIC = { "steady_pss_kb" => "pss", "steady_rss_kb" => "rss" }.freeze
      HOUR = 3600.0
      DISAGREE = %w[smaller_than_predicted larger_than_predicted].freeze

      module_function

      # @param prediction [Summary::Prediction]
      # @param observed [Summary::Change] the fleet's B against A
      # @param processes [Array(Integer, Integer)] counted in A and in B
      # @param window_s [Float] the fleet's window
      # @param metric [String] the fleet's (pss, rss, …)
      # @param parts [Hash{String=>Float}] the fleet's ledger parts, B less A, KiB (FleetParts)
      # @param conditions [Summary::Conditions, nil] what B's processes ran in (FleetConditions)
      # @return [Summary::Expectation]
      def call(prediction, observed, processes:, window_s:, metric:, parts: {}, conditions: nil)
        predicted = prediction.ci || (prediction.pct && [prediction.pct, prediction.pct])
        verdict, why, more = judge(predicted, prediction.pct, observed, processes)
        gaps = gaps(prediction.ledger_kb || {}, parts)
        differing = ConditionGaps.call(prediction.conditions, conditions)
        Summary::Expectation.new(verdict: verdict, why: why, predicted_pct: prediction.pct,
                                 predicted_ci: prediction.ci, observed_pct: observed&.pct, observed_ci: observed&.ci,
                                 more_processes: more, more_process_hours: more && (more * window_s / HOUR).round(1),
                                 metric_note: metric_note(prediction.metric, metric), prediction: prediction,
                                 parts: gaps, differing_part: (differing(gaps) if DISAGREE.include?(verdict)),
                                 conditions: conditions, differing: differing,
                                 duration_alike_s: duration_alike(differing, prediction.conditions))
      end

      # Where the lab's runs served fewer requests than production's trees had: the seconds of load at the lab's rate
      # that would serve as many.
      def duration_alike(differing, lab)
        served = differing.find { |gap| gap.name == "served" }
        return unless served && served.production > served.lab && lab.rate&.positive?

        (served.production / lab.rate).ceil
      end

      # Every part either side has, in the ledger's order where the fleet gave it.
      def gaps(predicted, observed)
        (observed.keys | predicted.keys).map do |part|
          lab = predicted[part]
          seen = observed[part]
          Summary::PartGap.new(part: part, predicted_kb: lab&.round(1), observed_kb: seen&.round(1),
                               gap_kb: lab && seen && (seen - lab).round(1))
        end
      end

      def differing(gaps) = gaps.select(&:gap_kb).max_by { |gap| gap.gap_kb.abs }&.part

      def judge(predicted, point, observed, processes)
        return ["undecided", "no_prediction", nil] unless predicted
        return ["undecided", "too_few_processes", fewest_more(processes)] unless observed&.ci

        seen = observed.ci
        return [apart(predicted, point, seen), nil, nil] unless overlap?(predicted, seen)
        return ["as_predicted", nil, nil] unless holds_zero?(seen) && !holds_zero?(predicted)

        ["undecided", "cannot_tell_from_none", more_to_tell(seen, point, processes)]
      end

      def overlap?(one, other) = one.min <= other.max && other.min <= one.max

      def holds_zero?(interval) = interval.min <= 0 && interval.max >= 0

      # The fleet's interval wholly on no change's side of the lab's: less of the predicted change than predicted.
      def apart(predicted, point, seen)
        return "larger_than_predicted" if point.nil? || point.zero? || holds_zero?(predicted)

        toward_zero = point.negative? ? seen.min > predicted.max : seen.max < predicted.min
        toward_zero ? "smaller_than_predicted" : "larger_than_predicted"
      end

      def more_to_tell(seen, point, processes)
        return if point.nil? || point.zero?

        half_width = (seen.max - seen.min) / 2.0
        factor = (half_width / (point.abs / 2.0))**2
        [(processes.sum * (factor - 1)).ceil, 2].max
      end

      # The rank interval's smallest sizes at 95%: the pair of them nearest to what the fleet has.
      def fleet_sizes = RankShift.smallest_sizes(level: FleetSummary::LEVEL)

      def fewest_more(processes)
        fleet_sizes.flat_map { |need| [need, need.reverse] }
                   .map { |need| need.zip(processes).sum { |wanted, have| [wanted - have, 0].max } }.min
      end

      def metric_note(lab, fleet)
        return if SAME_METRIC[lab.to_s] == fleet

        "the lab compared #{lab}, the fleet #{fleet}"
      end

      private_class_method :gaps, :differing, :duration_alike, :judge, :overlap?, :holds_zero?, :apart, :more_to_tell,
                           :fleet_sizes, :fewest_more, :metric_note
    end
  end
end
