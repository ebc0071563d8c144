# frozen_string_literal: true

module Mallard
  module Analysis
    # Picks the configuration to deploy from a Comparison: the one using least memory among those that use
    # detectably less than the baseline, work, cost neither throughput, p99 latency nor CPU time per request
    # detectably, and are not beaten on every resolved figure by another (ParetoFront).
    #
    # Only significant changes count, both for the memory saving and for the costs. A saving that the interval
    # does not separate from zero is not one to act on; a cost is held against a candidate only once measured,
    # so noise in req/s cannot veto a real saving. Memory comes first (mallard is asked which configuration
    # shrinks the app), but gains are reported as well as costs: when configurations trade memory against
    # throughput, latency or CPU, the trade-offs list each one no other beats, with what it gains and gives up,
    # and the recommendation says which of them memory came before.
    #
    # The decision is data (Summary::Recommendation: the winner, the rejected with the figures that rejected each,
    # the rivals set against it, the trade-offs as changes, the deploy effort that broke a tie); its sentences are
    # Report::RecommendationSentences'. A new axis adds rows and effort levels, not sentences here.
    module Recommendation
      # Each figure of a Summary::Versus: its change, interval, significance, which way is better, and its name.
      FIGURES = [%i[rss_pct rss_pct_ci significant lower memory],
                 %i[rps_pct rps_pct_ci rps_significant higher rate],
                 %i[p99_pct p99_pct_ci p99_significant lower latency],
                 %i[cpu_pct cpu_pct_ci cpu_significant lower cpu]].freeze
      # ParetoFront's figure keys, by the names FIGURES gives them.
      PARETO_FIGURES = { memory: "memory", rps: "rate", p99: "latency", cpu: "cpu" }.freeze

      module_function

      # @param comparison [Comparison::Result]
      # @return [Summary::Recommendation]
      def call(comparison)
        baseline = comparison.baseline
        unless usable_baseline?(comparison)
          return Summary::Recommendation.new(baseline: baseline, ending: "no_baseline", rejected: [], trade_offs: [],
                                             rivals: [])
        end

        front = comparison.front || comparison.configs.map(&:name)
        winner, rejected = weigh(comparison, front)
        trade_offs = trade_offs(comparison, front)
        return without_winner(baseline, rejected, trade_offs) unless winner

        chosen, rivals = against_rivals(comparison, winner, front)
        decided(comparison, chosen, rejected, trade_offs, rivals)
      end

      def decided(comparison, chosen, rejected, trade_offs, rivals)
        versus = chosen.vs_baseline
        # A rival tied on memory is weighed in its own sentence, not as one that memory came before.
        tied = rivals.find { |rival| rival.relation == "tied" }&.name
        Summary::Recommendation.new(
          name: chosen.name, baseline: comparison.baseline, saving: move("memory", versus.rss_pct, versus.rss_pct_ci),
          unharmed: unharmed(versus), deploy_effort: effort(chosen), rejected: rejected, trade_offs: trade_offs,
          rivals: rivals, alternatives: alternatives(trade_offs, chosen.name, tied)
        )
      end

      def without_winner(baseline, rejected, trade_offs)
        Summary::Recommendation.new(baseline: baseline, ending: rejected.empty? ? "no_saving" : "costs", rivals: [],
                                    rejected: rejected, trade_offs: trade_offs)
      end

      # The winner set against its rivals, each memory to memory: the other candidates without a measured cost that
      # nothing beats (the front), least memory first, else the next candidate without a measured cost. Of two in the
      # front whose memory is not told apart, the one with less to deploy is recommended (with as much, the one with
      # the lower median, which came first), and whether they differ elsewhere is kept (what each gained against the
      # other). A beaten one is never preferred so: a demo's glibc-arena2, its memory not told from jemalloc-tuned's
      # but its req/s 8% lower, had been recommended as "the smaller change" and listed as passed over at once. Every
      # rival is set against it, not only the next: a third configuration in the front had appeared only with its
      # gains against the baseline.
      # @return [Array(Summary::Config, Array<Summary::Rival>)] the configuration to recommend, and its rivals
      def against_rivals(comparison, winner, front)
        rivals = rivals(comparison, winner, front)
        tie = rivals.find { |rival| front.include?(rival.name) && memory_tie?(rival, winner) }
        chosen, other = tie && effort(tie) < effort(winner) ? [tie, winner] : [winner, tie]
        set = rivals.filter_map do |rival|
          rival.equal?(tie) ? tied(comparison, chosen, other) : against(comparison, chosen, rival, front)
        end
        [chosen, set]
      end

      def rivals(comparison, winner, front)
        others = candidates(comparison).select { |config| config.name != winner.name && costs(config).empty? }
        in_front = others.select { |config| front.include?(config.name) }
        in_front.empty? ? others.first(1) : in_front
      end

      # Memory measured well enough to tell, and not told apart.
      def memory_tie?(one, other)
        change = memory_change(one, other)
        change.ci && !change.significant
      end

      # Of two not told apart on memory, the one not chosen (less to deploy, else the lower median chose).
      def tied(comparison, chosen, other)
        rival(other, chosen, "tied", differences: differences(comparison, other, chosen))
      end

      # What each of the pair is better on than the other, pair against pair, memory aside.
      def differences(comparison, one, other)
        mine, theirs = comparison.series.to_h.values_at(one.name, other.name)
        return [] unless mine && theirs

        [[one, other, mine, theirs], [other, one, theirs, mine]].filter_map do |better, worse, its, against|
          gains = gains(its, against)
          Summary::Difference.new(better: better.name, worse: worse.name, on: gains) unless gains.empty?
        end
      end

      # The figures other than memory that one series is better on than another.
      def gains(series, against) = pareto_moves(ParetoFront.gains(series, against).except(:memory))

      def pareto_moves(changes)
        changes.map { |key, found| move(PARETO_FIGURES.fetch(key), found.pct, found.ci) }
      end

      # The rival's memory against the chosen one's, and what it gained for what it used. None when its memory was
      # not told apart and it is not in the front: one beaten is passed over already, and one after the winner in
      # memory lost nothing worth saying.
      def against(comparison, chosen, rival, front)
        change = memory_change(rival, chosen)
        return unless change.ci && (change.significant || front.include?(rival.name))
        unless change.significant
          return rival(rival, chosen, "not_told_apart", differences: differences(comparison, rival, chosen))
        end

        rival(rival, chosen, "used_more", gains: rival_gains(comparison, rival, chosen))
      end

      def rival(config, chosen, relation, differences: [], gains: [])
        found = memory_change(config, chosen)
        Summary::Rival.new(name: config.name, relation: relation, deploy_effort: effort(config),
                           memory: move("memory", found.pct, found.ci), differences: differences, gains: gains)
      end

      def memory_change(rival, chosen) = Change.call(memory_values(rival), memory_values(chosen))

      # What a rival in the front gained against the chosen one, pair against pair (it is in the front, so it is
      # better on some figure, or alike): a demo's jemalloc-tuned, 9% larger than glibc-arena2, served 27% more
      # req/s than it, which against the baseline alone did not resolve. Kept only when its gains against the
      # baseline did not already show it.
      def rival_gains(comparison, rival, chosen)
        mine, theirs = comparison.series.to_h.values_at(rival.name, chosen.name)
        return [] unless mine && theirs
        return [] if moves(rival.vs_baseline, better: true).any? { |found| found.figure != "memory" }

        gains(mine, theirs)
      end

      def memory_values(config) = Array(config.steady_rss_kb&.values)

      # Older summaries did not record it, and predate Ruby as a configuration: as much as an allocator can need.
      def effort(config) = config.deploy_effort || Allocators::DeployEffort::LIBRARY

      # The winner (the first candidate, least memory first, that costs nothing measurable and is in the front), and
      # the candidates rejected — every one with a cost, and those beaten that used less memory than the winner
      # (passed over).
      def weigh(comparison, front)
        candidates = candidates(comparison)
        place = candidates.index { |config| costs(config).empty? && front.include?(config.name) } || candidates.size
        rejected = candidates.each_with_index.filter_map do |config, index|
          rejection(comparison, config, passed_over: index < place)
        end
        [candidates[place], rejected]
      end

      # Why a candidate is not taken: what it costs, else (when it used less than the winner) who beats it.
      def rejection(comparison, config, passed_over:)
        costs = costs(config)
        beating = comparison.beaten.to_h[config.name] if passed_over && costs.empty?
        return if costs.empty? && beating.nil?

        Summary::Rejection.new(name: config.name, passed_over: passed_over, costs: costs, by: beating&.by,
                               on: beating ? pareto_moves(beating.on) : [])
      end

      def candidates(comparison)
        comparison.configs.select { |config| candidate?(config) }.sort_by { |config| config.steady_rss_kb.median }
      end

      def usable_baseline?(comparison)
        reference = comparison.configs.find { |config| config.name == comparison.baseline }
        !reference.nil? && !reference.failed && reference.repeats.positive?
      end

      # Failed or unverified runs measured something other than the configuration named, so they never win.
      def candidate?(config)
        versus = config.vs_baseline
        config.available && config.verified && !config.failed && config.repeats.positive? &&
          !versus.nil? && versus.significant && versus.rss_pct.negative?
      end

      # What the candidate costs against the baseline (throughput, latency, CPU): empty when nothing detectable.
      def costs(config) = moves(config.vs_baseline, better: false).reject { |found| found.figure == "memory" }

      # The resolved changes against the baseline that are gains (better: true), or costs.
      def moves(versus, better:)
        FIGURES.filter_map do |pct, ci, significant, direction, figure|
          next unless versus[significant] && versus[pct]

          gain = direction == :lower ? versus[pct].negative? : versus[pct].positive?
          move(figure.to_s, versus[pct], versus[ci]) if gain == better
        end
      end

      def move(figure, pct, interval) = Summary::Move.new(figure: figure, pct: pct, ci: interval)

      # The front's members other than the baseline that resolve any change, with their gains and costs; empty when
      # there is nothing to weigh (at most one such member, gaining only memory).
      def trade_offs(comparison, front)
        members = comparison.configs.select { |config| front.include?(config.name) && config.vs_baseline }
        entries = members.filter_map { |config| trade_off(config) }
        entries.size > 1 || entries.any? { |entry| beyond_memory?(entry) } ? entries : []
      end

      def trade_off(config)
        gained = moves(config.vs_baseline, better: true)
        given_up = moves(config.vs_baseline, better: false)
        Summary::TradeOff.new(name: config.name, gained: gained, given_up: given_up) unless (gained + given_up).empty?
      end

      def beyond_memory?(entry) = entry.gained.any? { |found| found.figure != "memory" }

      # The figures measured without a detectable loss: without load there is no req/s, latency or CPU per request
      # to have lost, so none is claimed.
      def unharmed(versus)
        return [] unless versus.rps_pct || versus.p99_pct

        versus.cpu_pct ? %w[rate latency cpu] : %w[rate latency]
      end

      # The trade-offs gaining more than memory that the winner was chosen over: memory comes first among
      # configurations without a measured cost.
      def alternatives(trade_offs, winner, tied)
        trade_offs.select { |entry| ![winner, tied].include?(entry.name) && beyond_memory?(entry) }.map(&:name)
      end

      private_class_method :decided, :without_winner, :against_rivals, :rivals, :memory_tie?, :tied, :differences,
                           :gains, :pareto_moves, :against, :rival, :memory_change, :rival_gains, :memory_values,
                           :effort, :weigh, :rejection, :candidates, :usable_baseline?, :candidate?, :costs, :moves,
                           :move, :trade_offs, :trade_off, :beyond_memory?, :unharmed, :alternatives
    end
  end
end
