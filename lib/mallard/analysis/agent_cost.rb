# frozen_string_literal: true

require_relative "statistics"
require_relative "significance"

module Mallard
  module Analysis
    # What mallard's agent costs the app in a comparison: the baseline's runs (with the agent, as every counted run
    # is) against one run of the same configuration without it. One run has no interval, and this machine's
    # run-to-run noise is several percent, so the figure is an estimate of the floor under mallard's absolute
    # req/s, not a verdict; every configuration carries the agent, so their comparison is affected only as far as it
    # moves them differently.
    #
    # Memory too: the agent's code, loaded at boot, is a draw of Ruby's heap lottery (the heap settles at a size
    # that depends on what was allocated at boot, and the GC rate with it). A small app feels it: the fragmenting
    # fixture's heap settled at 147 pages with the agent and 151 without, and it ran 1.5 times the major GCs
    # (bench/README.md). So the line says how far the app's steady memory moved as well.
    module AgentCost
      module_function

      # @param with [Array<Summary::RunFigures>] the baseline's counted runs
      # @param without [Summary::RunFigures, nil] the baseline's run without the agent (nil: not measured)
      # @param baseline [String] its name
      # @return [Summary::AgentCost, nil]
      def call(with, without, baseline:)
        rates = with.map(&:rps).grep(Numeric)
        rps = Statistics.median(rates)
        return unless without&.rps&.positive? && rps

        cost = Summary::AgentCost.new(rps_with: rps.round(1), rps_without: without.rps.round(1),
                                      rps_pct: pct(rps, without.rps), runs_with: rates.size,
                                      rps_with_range: rates.minmax.map { |rate| rate.round(1) },
                                      **cpu(with, without.cpu_ms_per_request), **memory(with, without.steady_rss_kb))
        cost.with(sentence: sentence(cost, baseline))
      end

      # No run without the agent was a measurement (each is run twice at most), so there is no floor to state; the
      # comparison says so rather than leave the line out.
      # @param reason [String] why the last run without it was not counted: its problems, or how it ended
      # @return [Summary::AgentCost]
      def unmeasured(reason, baseline:)
        Summary::AgentCost.new(unmeasured: reason,
                               sentence: "The agent's cost here was not measured: #{baseline}'s run without it " \
                                         "was not a measurement (#{reason}), so mallard's absolute req/s and CPU " \
                                         "figures are read without knowing that floor.")
      end

      def cpu(with, without)
        median, without, change = change(with, :cpu_ms_per_request, without)
        median ? { cpu_ms_with: median.round(4), cpu_ms_without: without.round(4), cpu_pct: change } : {}
      end

      def memory(with, without)
        median, without, change = change(with, :steady_rss_kb, without)
        median ? { steady_rss_kb_with: median.round, steady_rss_kb_without: without.round, rss_pct: change } : {}
      end

      # A figure's median over the runs with the agent, the run's without it, and the change: [] when either is
      # missing.
      def change(with, key, without)
        median = Statistics.median(with.map(&key).grep(Numeric))
        median && without&.positive? ? [median, without, pct(median, without)] : []
      end

      # without: positive (call and change see to it)
      def pct(with, without) = ((with / without) - 1) * 100

      def sentence(cost, baseline)
        cpu = cost.cpu_pct ? format(", CPU per request %+.1f%%", cost.cpu_pct) : ""
        format("The agent's cost here: %s served %.1f req/s with it (median of %d) and %.1f without it (one run): " \
               "%+.1f%% req/s%s%s. %s Read mallard's absolute figures with this in mind. %s",
               baseline, cost.rps_with, cost.runs_with, cost.rps_without, cost.rps_pct, cpu, memory_clause(cost),
               noise_clause(cost), differences(cost))
      end

      # One run without the agent has no interval, and whether it falls among the runs with it decides nothing: with
      # n runs with it, a run like them lies above or below them all 2 times in n + 1. What can be said is how far
      # runs of one configuration spread here: the size of a difference one run cannot tell from noise. (Measured side
      # by side on one CPU, bench/agent_paired.rb, the agent's cost is a few percent at most.)
      def noise_clause(cost)
        low, high = cost.rps_with_range
        return "One run without it has no interval." if cost.runs_with < 2 || low == high

        format("One run without it has no interval, and the runs with it spread from %.1f to %.1f req/s (%.1f%% of " \
               "their median): a difference smaller than that is not told from run-to-run noise.",
               low, high, (high - low) / cost.rps_with * 100)
      end

      # Every configuration carries the agent, so their differences hold where it moves them alike. Where it moved
      # the baseline's memory by more than two runs of one app settle apart, the heap lottery it drew need not be
      # the same under every allocator: the fragmenting fixture's glibc-arena2 saved 15% with it and 24% without.
      def differences(cost)
        moved = cost.rss_pct && cost.rss_pct.abs > Significance::RUN_TO_RUN_PCT
        return "Every configuration carries it alike." unless moved

        format("It moved this app's steady memory by more than two runs of one app settle apart (%.0f%%), so the " \
               "configurations' differences in memory may be partly its doing.", Significance::RUN_TO_RUN_PCT)
      end

      # The agent's code moves Ruby's heap lottery; in a small app that is a difference in memory of its own.
      def memory_clause(cost)
        return "" unless cost.rss_pct

        format("; steady RSS %.1f MiB with it, %.1f without (%+.1f%%)", cost.steady_rss_kb_with / 1024.0,
               cost.steady_rss_kb_without / 1024.0, cost.rss_pct)
      end

      private_class_method :cpu, :memory, :change, :pct, :sentence, :noise_clause, :differences, :memory_clause
    end
  end
end
