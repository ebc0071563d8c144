# frozen_string_literal: true

module Mallard
  module Analysis
    # The configurations no other beats on every resolved figure: memory, throughput, p99 latency and CPU time per
    # request. One beats another when, pair against pair with the one change rule (Change: Welch on the logs of
    # their repeats, a difference only beyond the noise band), it is worse on none of them and better on at least
    # one. Figures a pair cannot tell apart decide nothing, so a configuration that trades memory for throughput
    # stays in the front beside one that does the opposite: that is the trade-off a person has to weigh.
    module ParetoFront
      # Which way is better, per figure of Comparison's series.
      BETTER = { memory: :lower, rps: :higher, p99: :lower, cpu: :lower }.freeze

      module_function

      # @param series [Hash{String=>Hash}] each configuration's figures by repeat (Comparison's series)
      # @return [Array<String>] the names in the front, in the order given
      def call(series)
        series.keys.reject do |name|
          series.any? { |other, figures| other != name && beats?(figures, series[name]) }
        end
      end

      def beats?(challenger, holder)
        # true: the challenger is better on that figure, false: worse, nil: the pair cannot tell.
        verdicts = BETTER.map do |key, better|
          change = Change.call(challenger[key], holder[key])
          next unless change.significant

          better == :lower ? change.pct.negative? : change.pct.positive?
        end.compact
        verdicts.any? && verdicts.all?
      end

      private_class_method :beats?
    end
  end
end
