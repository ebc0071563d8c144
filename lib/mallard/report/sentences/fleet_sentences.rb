# frozen_string_literal: true

module Mallard
  module Report
    # The sentences of a fleet comparison, written once. A fleet has only a terminal view (and --json); its
    # presenter is here so that every kind of run has one, and a future HTML page says the same.
    class FleetSentences
      include Formatting

      # @param summary [Summary::Fleet]
      def initialize(summary)
        @summary = summary
      end

      VERDICTS = { "as_predicted" => "As predicted", "smaller_than_predicted" => "Smaller than predicted",
                   "larger_than_predicted" => "Larger than predicted", "undecided" => "Not yet decided" }.freeze

      def all = [expectation, interval, too_few, fail_over].compact

      # --expect: "As predicted: B against A −21.3% (−24.0 … −18.5); the lab predicted −28.8% (…) for glibc-arena2
      # against glibc (compare RUN, its recommendation)." and, undecided, what would decide it.
      def expectation
        expected = @summary.expectation
        return unless expected

        prediction = expected.prediction
        "#{VERDICTS.fetch(expected.verdict)}: B against A #{observed(expected)}; the lab predicted " \
          "#{Words.change(expected.predicted_pct, expected.predicted_ci)} for #{prediction.config} against " \
          "#{prediction.baseline} (#{Text.printable(prediction.run)}, #{chosen(prediction)})." \
          "#{undecided(expected)}#{differing(expected)}#{unlike(expected.differing)}#{longer(expected)}" \
          "#{metric_note(expected)}"
      end

      # How the interval was computed and the band a difference must clear.
      def interval
        confidence = @summary.confidence ? format(" (its exact confidence %.1f%%)", @summary.confidence * 100) : ""
        "Interval: #{@summary.methodology}#{confidence}; a difference only beyond #{band(@summary.change&.noise_pct)}."
      end

      # Why there is no verdict, when there is none.
      def too_few
        return unless @summary.change&.ci.nil?

        sizes = Array(@summary.smallest_sizes).map { |n, m| n == m ? "#{n} and #{n}" : "#{n} against #{m}" }
        "No verdict: too few processes to decide (#{@summary.a.processes} in A, #{@summary.b.processes} in B); " \
          "a 95% interval needs at least #{sizes.join(', ')}."
      end

      def observed(expected)
        return "has no interval yet" unless expected.observed_ci

        Words.change(expected.observed_pct, expected.observed_ci)
      end

      def chosen(prediction)
        prediction.chosen_by == "recommendation" ? "its recommendation" : "as named"
      end

      UNDECIDED = { "too_few_processes" => "Too few processes for an interval",
                    "cannot_tell_from_none" => "B's interval holds both no change and the change predicted",
                    "no_prediction" => "The lab's comparison had no change to expect" }.freeze
      private_constant :UNDECIDED

      def undecided(expected)
        return "" unless expected.verdict == "undecided"

        " #{UNDECIDED.fetch(expected.why)}#{more_needed(expected.more_processes, expected)}."
      end

      def more_needed(more, expected)
        return "" unless more

        format("; about %<n>d more processes (%<h>g process-hours over this window) would decide it",
               n: more, h: expected.more_process_hours)
      end

      # Where the fleet disagrees: the memory ledger's part furthest from what the lab predicted for it.
      def differing(expected)
        gap = expected.parts.find { |part| part.part == expected.differing_part }
        if gap
          return " The part furthest from the prediction: #{gap.part}, predicted #{signed_mib(gap.predicted_kb)} a " \
                 "process, observed #{signed_mib(gap.observed_kb)}."
        end
        return "" unless expected.verdict.end_with?("than_predicted") && expected.prediction.ledger_kb.nil?

        " The comparison kept no memory ledger to set the fleet's parts against."
      end

      # " Lab and production differ in Puma's pool threads (8 in the lab, 16 in production)."
      def unlike(gaps) = gaps.empty? ? "" : " Lab and production differ in #{Words.condition_gaps(gaps)}."

      # " Runs of about 58 s (--duration) would serve as many requests a tree at the lab's rate."
      def longer(expected)
        seconds = expected.duration_alike_s
        seconds ? " Runs of about #{seconds} s (--duration) would serve as many requests a tree at the lab's rate." : ""
      end

      def signed_mib(kb) = format("%+.1f MiB", kb / 1024.0)

      def metric_note(expected) = expected.metric_note ? " Note: #{expected.metric_note}." : ""

      # Why --fail-over failed: "B uses +23.4% (+20.1 … +26.0) more than A, over --fail-over 5%"; nil unless it did.
      def fail_over
        gate = @summary.fail_over
        return unless gate&.failed
        return gate.reason if gate.worded?

        "B uses #{Words.change(gate.pct, gate.ci)} more than A, over --fail-over #{format('%g', gate.threshold_pct)}%"
      end
    end
  end
end
