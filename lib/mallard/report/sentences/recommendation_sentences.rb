# frozen_string_literal: true

module Mallard
  module Report
    # The words of a comparison's decision (Summary::Recommendation), for every view: why the configuration was
    # recommended (or none), each one passed over and why, and the trade-offs. Changes are Words'. A summary stored
    # with its sentences (an older summary.json) is shown as it was worded then.
    class RecommendationSentences
      # @param recommendation [Summary::Recommendation]
      # @param unit [String] "requests" or "jobs" (Words.unit_of)
      # @param metric [String] the comparison's memory metric
      def initialize(recommendation, unit:, metric:)
        @decision = recommendation
        @names = Words.figures(unit, metric)
      end

      def all = [reason, *rejections.map(&:last), *trade_offs.map(&:last)]

      # Why this configuration (or none) is recommended, in a paragraph.
      def reason
        return @decision.reason if @decision.worded?

        decided = if @decision.name
                    [winning, alternatives, ruby_change, *@decision.rivals.map do |rival|
                                                           rival_sentence(rival)
                                                         end]
                  else
                    [without_winner]
                  end
        [*decided, arenas].compact.join(" ")
      end

      # [[name, why], …]: each configuration passed over.
      def rejections = @decision.rejected.map { |entry| [entry.name, why(entry)] }

      # [[name, "gains …; costs …"], …]: the configurations no other beats on every resolved figure.
      def trade_offs
        @decision.trade_offs.map do |entry|
          gains, costs = @decision.worded? ? [entry.gains, entry.costs] : [moves(entry.gained), moves(entry.given_up)]
          parts = ["gains #{gains.empty? ? 'nothing resolved' : gains.join(', ')}"]
          parts << "costs #{costs.join(', ')}" if costs.any?
          [entry.name, parts.join("; ")]
        end
      end

      private

      def with_winner = [winning, alternatives, ruby_change, *@decision.rivals.map { |rival| rival_sentence(rival) }]

      def without_winner
        baseline = @decision.baseline
        case @decision.ending
        when "no_baseline"
          "#{baseline}, the baseline, has no completed runs, so nothing could be compared with it; keep #{baseline} " \
          "and run the comparison again."
        when "costs"
          "Every configuration that used detectably less memory than #{baseline} cost too much elsewhere " \
          "(#{rejections.map { |name, why| "#{name}: #{why}" }.join('; ')}); keep #{baseline}."
        else
          "No configuration used detectably less memory than #{baseline} in this run; keep #{baseline} " \
          "(short-lived or single-threaded processes often show no difference)."
        end
      end

      # "jemalloc used less memory than glibc: steady RSS -20.0% (…), with no detectable loss of req/s…; mimalloc
      # used less still but was passed over: …."
      def winning
        sentence = "#{@decision.name} used less memory than #{@decision.baseline}: " \
                   "#{Words.moved(@decision.saving, @names)}#{unharmed}"
        @decision.rejected.select(&:passed_over).each do |entry|
          sentence += "; #{entry.name} used less still but was passed over: #{why(entry)}"
        end
        "#{sentence}."
      end

      def unharmed
        figures = Array(@decision.unharmed)
        return "" if figures.empty?

        rate, latency, cpu = figures.map { |figure| @names.fetch(figure.to_sym) }
        return ", with no detectable loss of #{rate} or rise in #{latency}" unless cpu

        ", with no detectable loss of #{rate}, rise in #{latency} or in #{cpu}"
      end

      def why(entry)
        return entry.why if entry.why
        return moves(entry.costs).join(" and ") if entry.costs.any?

        "#{entry.by} was as good on every resolved figure and better: #{moves(entry.on).join(' and ')} against it"
      end

      def rival_sentence(rival)
        case rival.relation
        when "tied" then tied(rival)
        when "not_told_apart" then "#{not_told_apart(rival)}."
        else used_more(rival)
        end
      end

      # Of two not told apart on memory, why the recommended one: less to deploy, else its lower median.
      def tied(rival)
        trade = rival.differences.empty? ? "" : ": choose #{rival.name} instead if that matters more here"
        "#{not_told_apart(rival)}; #{@decision.name} is recommended #{deploys(rival)}#{trade}."
      end

      # Not "about as much": a wide interval leaves a large median difference unresolved (a demo's +24%, −2.1 … +58).
      def not_told_apart(rival)
        memory = "#{rival.name}'s memory was not told apart from #{@decision.name}'s (#{measured(rival)})"
        return "#{memory}, nor was any other figure" if rival.differences.empty?

        "#{memory}, though they differ elsewhere: #{rival.differences.map { |found| difference(found) }.join(', and ')}"
      end

      def difference(found) = "#{found.better} gained #{moves(found.on).join(' and ')} against #{found.worse}"

      def used_more(rival)
        sentence = "#{@decision.name} also used less than #{rival.name} (#{measured(rival)})."
        return sentence if rival.gains.empty?

        "#{sentence} For that memory #{rival.name} gained #{moves(rival.gains).join(' and ')} against it: " \
          "choose it instead if that matters more here."
      end

      # "glibc-arena2 against jemalloc: steady RSS +0.4% (…)"
      def measured(rival) = "#{rival.name} against #{@decision.name}: #{Words.moved(rival.memory, @names)}"

      def deploys(rival)
        mine = @decision.deploy_effort
        return "for its lower median alone, with no more to deploy" if mine == rival.deploy_effort

        "as the smaller change to deploy (#{Words::DEPLOYS[mine]}, where #{rival.name} needs " \
          "#{Words::DEPLOYS[rival.deploy_effort]})"
      end

      # Why the winner over the trade-offs that gain more than memory: memory comes first.
      def alternatives
        others = Array(@decision.alternatives)
        return if others.empty?

        weighed = @decision.trade_offs.select { |entry| others.include?(entry.name) }.map do |entry|
          given_up = entry.given_up.empty? ? "" : " for #{moves(entry.given_up).join(', ')}"
          "#{entry.name} gains #{moves(entry.gained).join(', ')}#{given_up}"
        end
        "It is recommended because memory comes first among configurations without a measured cost; " \
          "#{weighed.join('; ')}: choose it instead if that matters more here."
      end

      # A Ruby change is the largest deployment there is: said once, in the reason, so it is not missed.
      def ruby_change
        return unless @decision.deploy_effort == Allocators::DeployEffort::RUBY_CHANGE

        "Deploying it means #{Words::DEPLOYS.last}: #{@decision.name} ran on another Ruby than the baseline."
      end

      def arenas
        sizing = @decision.arenas
        return unless sizing

        if sizing.production_cpus
          return "glibc's rows were sized as on #{sizing.production_cpus} CPUs (up to #{sizing.arenas} arenas, " \
                 "MALLOC_ARENA_MAX set to glibc's own limit there)."
        end

        "glibc's rows could create up to #{sizing.arenas} arenas here (8 per CPU, #{sizing.subject_cpus} CPUs); " \
          "in production a process may create 8 per CPU its host shows it, so pass --production-cpus N to size " \
          "them as there."
      end

      def moves(found) = found.map { |move| Words.moved(move, @names) }
    end
  end
end
