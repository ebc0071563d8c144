# frozen_string_literal: true

module Mallard
  module Report
    # The sentences of a diff (Summary::Diff), written once: why --fail-over failed, for the diff's terminal view
    # and the one line `mallard diff` prints to stderr. A change and the metric's name are Words'.
    class DiffSentences
      include Formatting

      # @param diff [Summary::Diff]
      def initialize(diff)
        @diff = diff
      end

      # "jemalloc: steady RSS +20.0% (+15.2 … +25.1): worse than the 10% --fail-over allows, with 95% confidence";
      # the row is named where the kind of run can fail on several (RunKind#fail_over_names_row?). nil unless the
      # gate failed.
      def fail_over
        gate = @diff.fail_over
        return unless gate&.failed
        return gate.reason if gate.worded?

        where = RunKind.named(@diff.kind).fail_over_names_row? ? "#{Text.printable(gate.row)}: " : ""
        more = gate.more.to_i.positive? ? " (and #{plural(gate.more, 'more configuration')})" : ""
        "#{where}#{Words.metric(@diff.metric, @diff.unit || 'requests')} #{Words.change(gate.pct, gate.ci)}: worse " \
          "than the #{format('%g', gate.threshold_pct)}% --fail-over allows, with 95% confidence#{more}"
      end
    end
  end
end
