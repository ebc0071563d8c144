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
      # @param beaten [Hash] #beaten of the same series, when the caller has it already
      # @return [Array<String>] the names in the front, in the order given
      def call(series, beaten = beaten(series))
        series.keys.reject { |name| beaten.key?(name) }
      end

      # Each configuration out of the front, with the first that beats it and the figures it is better on.
      # @return [Hash{String=>Hash}] name => { by: name, on: { figure key => Change of the challenger against it } }
      def beaten(series)
        series.each_key.with_object({}) do |name, found|
          series.each do |other, figures|
            better_on = other == name ? nil : better_on(figures, series[name])
            next unless better_on

            found[name] = { by: other, on: better_on }
            break
          end
        end
      end

      # The figures the challenger is better on (with their changes), when it is worse on none and better on one at
      # least; else nil. Figures the pair cannot tell apart decide nothing.
      def better_on(challenger, holder)
        resolved = resolved(challenger, holder)
        better = resolved.select { |key, change| better?(key, change) }
        better if better.any? && better.size == resolved.size
      end

      # The figures the challenger is better on, pair against pair, whatever it is worse on.
      # @return [Hash{Symbol=>Change}] figure key => the challenger's change against the holder
      def gains(challenger, holder)
        resolved(challenger, holder).select { |key, change| better?(key, change) }
      end

      # The figures the pair can tell apart, with the challenger's change against the holder.
      def resolved(challenger, holder)
        BETTER.to_h { |key, _| [key, Change.call(challenger[key], holder[key])] }
              .select { |_, change| change.significant }
      end

      def better?(key, change) = BETTER[key] == :lower ? change.pct.negative? : change.pct.positive?

      private_class_method :better_on, :resolved, :better?
    end
  end
end
