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
    #
    # The figures and what they say are data (Summary::AgentCost); the line is Report::CompareSentences#agent_cost.
    module AgentCost
      module_function

      # @param with [Array<Summary::RunFigures>] the baseline's counted runs
      # @param without [Summary::RunFigures, nil] the baseline's run without the agent (nil: not measured)
      # @return [Summary::AgentCost, nil]
      def call(with, without)
        rates = with.map(&:rps).grep(Numeric)
        rps = Statistics.median(rates)
        return unless without&.rps&.positive? && rps

        range = rates.minmax.map { |rate| rate.round(1) }
        Summary::AgentCost.new(rps_with: rps.round(1), rps_without: without.rps.round(1),
                               rps_pct: pct(rps, without.rps), runs_with: rates.size, rps_with_range: range,
                               rps_spread_pct: spread(range, rps.round(1)),
                               **cpu(with, without.cpu_ms_per_request), **memory(with, without.steady_rss_kb))
      end

      # No run without the agent was a measurement (each is run twice at most), so there is no floor to state; the
      # comparison says so rather than leave the line out.
      # @param reason [String] why the last run without it was not counted: its problems, or how it ended
      # @return [Summary::AgentCost]
      def unmeasured(reason) = Summary::AgentCost.new(unmeasured: reason)

      def cpu(with, without)
        median, without, change = change(with, :cpu_ms_per_request, without)
        median ? { cpu_ms_with: median.round(4), cpu_ms_without: without.round(4), cpu_pct: change } : {}
      end

      # Every configuration carries the agent, so their differences hold where it moves them alike. Where it moved
      # the baseline's memory by more than two runs of one app settle apart (memory_moved), the heap lottery it drew
      # need not be the same under every allocator: the fragmenting fixture's glibc-arena2 saved 15% with it and 24%
      # without.
      def memory(with, without)
        median, without, change = change(with, :steady_rss_kb, without)
        return {} unless median

        { steady_rss_kb_with: median.round, steady_rss_kb_without: without.round, rss_pct: change,
          memory_moved: change.abs > Significance::RUN_TO_RUN_PCT }
      end

      # A figure's median over the runs with the agent, the run's without it, and the change: [] when either is
      # missing.
      def change(with, key, without)
        median = Statistics.median(with.map(&key).grep(Numeric))
        median && without&.positive? ? [median, without, pct(median, without)] : []
      end

      # without: positive (call and change see to it)
      def pct(with, without) = ((with / without) - 1) * 100

      # One run without the agent has no interval, and whether it falls among the runs with it decides nothing: with
      # n runs with it, a run like them lies above or below them all 2 times in n + 1. What can be said is how far
      # runs of one configuration spread here, as a share of their median: the size of a difference one run cannot
      # tell from noise (nil with one run, or none apart). (Measured side by side on one CPU, bench/agent_paired.rb,
      # the agent's cost is a few percent at most.)
      def spread(range, median)
        low, high = range
        (high - low) / median * 100 unless low == high
      end

      private_class_method :cpu, :memory, :change, :pct, :spread
    end
  end
end
