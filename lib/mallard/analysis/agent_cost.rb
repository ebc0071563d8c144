# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # What mallard's agent costs the app in a comparison: the baseline's runs (with the agent, as every counted run
    # is) against one run of the same configuration without it. One run has no interval, and this machine's
    # run-to-run noise is several percent, so the figure is an estimate of the floor under mallard's absolute
    # req/s, not a verdict; comparisons between configurations are unaffected, as every one carries the agent.
    module AgentCost
      module_function

      # @param with [Array<Summary::RunFigures>] the baseline's counted runs
      # @param without [Summary::RunFigures, nil] the baseline's run without the agent (nil: not measured)
      # @param baseline [String] its name
      # @return [Summary::AgentCost, nil]
      def call(with, without, baseline:)
        rps = Statistics.median(with.map(&:rps).grep(Numeric))
        return unless without&.rps&.positive? && rps

        cost = Summary::AgentCost.new(rps_with: rps.round(1), rps_without: without.rps.round(1),
                                      rps_pct: pct(rps, without.rps), runs_with: with.size,
                                      **cpu(with, without.cpu_ms_per_request))
        cost.sentence = sentence(cost, baseline)
        cost
      end

      def cpu(with, without)
        median = Statistics.median(with.map(&:cpu_ms_per_request).grep(Numeric))
        return {} unless median && without

        { cpu_ms_with: median.round(4), cpu_ms_without: without.round(4), cpu_pct: pct(median, without) }
      end

      def pct(with, without) = without.positive? ? ((with / without) - 1) * 100 : nil

      def sentence(cost, baseline)
        cpu = cost.cpu_pct ? format(", CPU per request %+.1f%%", cost.cpu_pct) : ""
        format("The agent's cost here: %s served %.1f req/s with it (median of %d) and %.1f without it (one run): " \
               "%+.1f%% req/s%s. One run without it has no interval; read mallard's absolute req/s with this floor " \
               "in mind (every configuration carries the agent, so their differences are unaffected).",
               baseline, cost.rps_with, cost.runs_with, cost.rps_without, cost.rps_pct, cpu)
      end

      private_class_method :cpu, :pct, :sentence
    end
  end
end
