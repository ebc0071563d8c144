# frozen_string_literal: true

require_relative "statistics"
require_relative "change"

module Mallard
  module Analysis
    # What mallard's agent costs the app in a comparison. The counted runs carry no mallard code (their work is
    # counted from outside), and each configuration runs once more with the agent, to verify it inside the process and
    # explain its figures. That run against the median of the configuration's runs without it is one pair; the pairs,
    # pooled over the configurations, give the agent's effect on each figure with an interval (Change.paired): req/s,
    # CPU per unit of work, p99 and steady memory.
    #
    # Memory belongs here as much as speed: the agent's code, loaded at boot, is a draw of Ruby's heap lottery (the
    # heap settles at a size that depends on what was allocated at boot, and the GC rate with it). A small app feels
    # it: the fragmenting fixture's heap settled at 147 pages with the agent and 151 without, and it ran 1.5 times the
    # major GCs (bench/README.md). That is why the table's figures are the clean runs'.
    #
    # The figures and what they say are data (Summary::AgentCost); the line is Report::CompareSentences#agent_cost.
    module AgentCost
      # Each figure: its name in Summary::AgentCost, and the RunFigures member it is read from (memory: the comparison's
      # metric, given).
      FIGURES = { "rps" => :rps, "cpu" => :cpu_ms_per_request, "p99" => :p99_ms }.freeze

      module_function

      # @param rows [Array<Summary::Row>] runs without the agent, instrumented_runs with it
      # @param metric [String] the comparison's memory figure (steady_rss_kb or steady_pss_kb)
      # @param lost [String, nil] why a configuration's run with the agent did not count, for when none did
      # @return [Summary::AgentCost, nil] nil where no configuration ran with the agent (a comparison whose every run
      #   carried it)
      def call(rows, metric:, lost: nil)
        figures = FIGURES.merge("rss" => metric.to_sym)
        pairs = rows.filter_map { |row| pair(row, figures) }
        return unmeasured(lost) if pairs.empty? && lost
        return if pairs.empty?

        changes = figures.keys.flat_map { |figure| pooled(figure, pairs.map { |_, pair| pair[figure] }) }.to_h
        Summary::AgentCost.new(configurations: pairs.size, pairs: pairs.map { |name, pair| agent_pair(name, pair) },
                               **changes)
      end

      # No configuration's run with the agent was a measurement (each is run twice at most), so there is no cost to
      # state; the comparison says so rather than leave the line out.
      # @param reason [String] why the last run with it was not counted: its problems, or how it ended
      # @return [Summary::AgentCost]
      def unmeasured(reason) = Summary::AgentCost.new(unmeasured: reason)

      # A configuration's pair, figure by figure: [with the agent, median without], or nil without both.
      def pair(row, figures)
        with = row.instrumented_runs.find(&:valid?)
        return unless with && row.runs.any?

        [row.name, figures.transform_values { |key| [with.public_send(key), median(row.runs, key)] }]
      end

      def median(runs, key) = Statistics.median(runs.map(&key).grep(Numeric))

      def agent_pair(name, pair)
        Summary::AgentPair.new(name: name, **pair.to_h { |figure, sides| [:"#{figure}_pct", pct(sides)] })
      end

      def pct((with, without))
        ((with.to_f / without) - 1) * 100 if with.is_a?(Numeric) && without.is_a?(Numeric) && without.positive?
      end

      def pooled(figure, sides)
        change = Change.paired(sides.select { |pair| pair.all?(Numeric) })
        [[:"#{figure}_pct", change.pct], [:"#{figure}_pct_ci", change.ci], [:"#{figure}_finding", change.finding]]
      end

      private_class_method :pair, :median, :agent_pair, :pct, :pooled
    end
  end
end
