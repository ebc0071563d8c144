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
    # and the reason says why the recommended one was chosen over them.
    module Recommendation
      MINUS = "−"
      METRIC_LABELS = { "steady_pss_kb" => "steady-state PSS", "steady_rss_kb" => "steady-state RSS" }.freeze
      # What throughput and p99 latency are of: requests, or a job worker's jobs and their wait in the queue.
      WORK = { rate: "req/s", latency: "p99 latency", cpu: "CPU per request" }.freeze
      JOB_WORK = { rate: "jobs/s", latency: "p99 queue wait", cpu: "CPU per job" }.freeze
      # Each figure of a comparison's row against the baseline: its change, interval, significance, which way is
      # better, and its label's key.
      # What each deploy effort (Allocators::Allocator#deploy_effort, and RUBY_CHANGE for another Ruby than the
      # baseline's) asks of a deployment.
      DEPLOYS = ["nothing to change", "an environment variable", "a file of mallard's loaded into the app",
                 "a library to install and preload", "another Ruby to install"].freeze
      # ParetoFront's figure keys, as WORK's.
      FIGURE_WORK = { memory: :memory, rps: :rate, p99: :latency, cpu: :cpu }.freeze
      ENVIRONMENT = 1
      RUBY_CHANGE = 4
      FIGURES = [%i[rss_pct rss_pct_ci significant lower memory],
                 %i[rps_pct rps_pct_ci rps_significant higher rate],
                 %i[p99_pct p99_pct_ci p99_significant lower latency],
                 %i[cpu_pct cpu_pct_ci cpu_significant lower cpu]].freeze

      module_function

      # @param comparison [Hash] as returned by Comparison.call
      # @param jobs [Boolean] a job worker's comparison
      # @return [Hash] { name:, reason:, rejected: [{ name:, why: }], trade_offs: [{ name:, gains:, costs: }] } (how
      #   to deploy it is the views' to render, from the catalog: Report::DeploySnippets)
      def call(comparison, jobs: false)
        baseline = comparison[:baseline]
        return without_baseline(baseline) unless usable_baseline?(comparison)

        work = (jobs ? JOB_WORK : WORK).merge(memory: METRIC_LABELS.fetch(comparison[:metric]))
        front = comparison[:front] || comparison[:configs].map { |config| config[:name] }
        winner, rejected, passed_over = weigh(comparison, front, work)
        trade_offs = trade_offs(comparison, front, work)
        return none(baseline, rejected).merge(trade_offs: trade_offs) unless winner

        winner, against, tied = against_rivals(comparison, winner, front, work)
        # A rival tied on memory is weighed in its own sentence, not as one that memory came before.
        weighed = trade_offs.reject { |entry| tied && entry[:name] == tied[:name] }
        { name: winner[:name], reason: winning_reason(comparison, winner, passed_over, work, weighed) + against,
          rejected: rejected, trade_offs: trade_offs }
      end

      # The winner set against its rivals, each memory to memory: the other candidates without a measured cost that
      # nothing beats (the front), least memory first, else the next candidate without a measured cost. Of two in the
      # front whose memory is not told apart, the one with less to deploy is recommended (with as much, the one with
      # the lower median, which came first), and the sentence says why, and whether they differ elsewhere (what each
      # gained against the other). A beaten one is never preferred so: a demo's glibc-arena2, its memory not told from
      # jemalloc-tuned's but its req/s 8% lower, had been recommended as "the smaller change" and listed as passed
      # over in the same sentence. Every rival is named, not only the next: a third configuration in the front had
      # appeared only with its gains against the baseline.
      # @return [Array(config, String, config)] the configuration to recommend, what the comparison found (or ""), and
      #   the one it was tied with on memory (nil when none was)
      def against_rivals(comparison, winner, front, work)
        rivals = rivals(comparison, winner, front, work)
        tie = rivals.find { |rival| front.include?(rival[:name]) && memory_tie?(rival, winner) }
        chosen, other = tie && effort(tie) < effort(winner) ? [tie, winner] : [winner, tie]
        sentences = rivals.map do |rival|
          rival.equal?(tie) ? tied(comparison, chosen, other, work) : against(comparison, chosen, rival, front, work)
        end
        [chosen, sentences.join, other]
      end

      def rivals(comparison, winner, front, work)
        others = candidates(comparison).select { |config| config[:name] != winner[:name] && costs(config, work).nil? }
        in_front = others.select { |config| front.include?(config[:name]) }
        in_front.empty? ? others.first(1) : in_front
      end

      # Memory measured well enough to tell, and not told apart.
      def memory_tie?(one, other)
        change = memory_change(one, other)
        change.ci && !change.significant
      end

      # Of two not told apart on memory, the chosen one (less to deploy, else the lower median) and why.
      def tied(comparison, chosen, other, work)
        differences = differences(comparison, other, chosen, work)
        trade = differences.empty? ? "" : ": choose #{other[:name]} instead if that matters more here"
        "#{not_told_apart(other, chosen, differences, work)}; #{chosen[:name]} is recommended " \
          "#{deploys(chosen, other)}#{trade}."
      end

      # " jemalloc's memory was not told apart from glibc-arena2's (…), nor was any other figure", or, when each is
      # better on another figure, "…, though they differ elsewhere: …". Not "about as much": a wide interval leaves
      # a large median difference unresolved (a demo's +24%, −2.1 … +58).
      # differences: #differences of the pair.
      def not_told_apart(rival, chosen, differences, work)
        memory = " #{rival[:name]}'s memory was not told apart from #{chosen[:name]}'s " \
                 "(#{measured(rival, chosen, work)})"
        return "#{memory}, nor was any other figure" if differences.empty?

        "#{memory}, though they differ elsewhere: #{differences.join(', and ')}"
      end

      # ["jemalloc gained −9.1% p99 latency (95% CI …) against glibc-arena2", "glibc-arena2 gained …"]: what each of
      # the pair is better on than the other, pair against pair, memory aside.
      def differences(comparison, one, other, work)
        mine, theirs = comparison.fetch(:series, {}).values_at(one[:name], other[:name])
        return [] unless mine && theirs

        [[one, other, mine, theirs], [other, one, theirs, mine]].filter_map do |better, worse, its, against|
          gains = gains(its, against, work)
          "#{better[:name]} gained #{gains.join(' and ')} against #{worse[:name]}" unless gains.empty?
        end
      end

      # The figures other than memory that one series is better on than another, as sentences' changes.
      def gains(series, against, work) = figure_changes(ParetoFront.gains(series, against).except(:memory), work)

      # ParetoFront's changes by figure key, as "−12% req/s (95% CI …)".
      def figure_changes(changes, work)
        changes.map { |key, found| change(found.pct, found.ci, work[FIGURE_WORK.fetch(key)]) }
      end

      # The rival's memory against the chosen one's, and what it gained for what it used. Nothing when its memory was
      # not told apart and it is not in the front: one beaten is passed over already, and one after the winner in
      # memory lost nothing worth a sentence.
      def against(comparison, chosen, rival, front, work)
        change = memory_change(rival, chosen)
        return "" unless change.ci && (change.significant || front.include?(rival[:name]))
        unless change.significant
          return "#{not_told_apart(rival, chosen, differences(comparison, rival, chosen, work), work)}."
        end

        " #{chosen[:name]} also used less than #{rival[:name]} (#{measured(rival, chosen, work)})." \
          "#{rival_gains(comparison, rival, chosen, work)}"
      end

      def memory_change(rival, chosen) = Change.call(memory_values(rival), memory_values(chosen))

      # "glibc-arena2 against jemalloc: +0.4% steady-state RSS (95% CI …)"
      def measured(rival, chosen, work)
        found = memory_change(rival, chosen)
        "#{rival[:name]} against #{chosen[:name]}: #{change(found.pct, found.ci, work[:memory])}"
      end

      # What a rival in the front gained against the chosen one, pair against pair (it is in the front, so it is
      # better on some figure, or alike): a demo's jemalloc-tuned, 9% larger than glibc-arena2, served 27% more
      # req/s than it, which against the baseline alone did not resolve. Said only when its gains against the
      # baseline did not already say it (other_sides).
      def rival_gains(comparison, rival, chosen, work)
        mine, theirs = comparison.fetch(:series, {}).values_at(rival[:name], chosen[:name])
        return "" unless mine && theirs
        return "" if moves(rival[:vs_baseline], work, better: true).any? { |label, _| label != :memory }

        gains = gains(mine, theirs, work)
        return "" if gains.empty?

        " For that memory #{rival[:name]} gained #{gains.join(' and ')} against it: choose it instead if that " \
          "matters more here."
      end

      def memory_values(config) = Array(config[:steady_rss_kb]&.values)

      # Older summaries did not record it, and predate Ruby as a configuration: as much as an allocator can need.
      def effort(config) = config[:deploy_effort] || (RUBY_CHANGE - 1)

      # Why the chosen one of two not told apart on memory: the smaller change to deploy, else (it came first) its
      # lower median alone.
      def deploys(chosen, other)
        return "for its lower median alone, with no more to deploy" if effort(chosen) == effort(other)

        "as the smaller change to deploy (#{DEPLOYS[effort(chosen)]}, where #{other[:name]} needs " \
          "#{DEPLOYS[effort(other)]})"
      end

      # The winner (the first candidate, least memory first, that costs nothing measurable and is in the front), the
      # candidates rejected with why — every one with a cost, and those beaten that used less memory than the
      # winner — and of those, the ones that used less memory than the winner (passed over).
      def weigh(comparison, front, work)
        candidates = candidates(comparison)
        place = candidates.index { |config| costs(config, work).nil? && front.include?(config[:name]) }
        place ||= candidates.size
        rejected = candidates.each_with_index.filter_map do |config, index|
          why = costs(config, work) || (beaten(comparison, config, work) if index < place)
          { name: config[:name], why: why, index: index } if why
        end
        passed_over = rejected.select { |entry| entry[:index] < place }
        [candidates[place], rejected.map { |entry| entry.except(:index) }, passed_over]
      end

      def candidates(comparison)
        comparison[:configs].select { |config| candidate?(config) }.sort_by { |config| config[:steady_rss_kb][:median] }
      end

      def usable_baseline?(comparison)
        reference = comparison[:configs].find { |config| config[:name] == comparison[:baseline] }
        !reference.nil? && !reference[:failed] && reference[:repeats].positive?
      end

      # Failed or unverified runs measured something other than the configuration named, so they never win.
      def candidate?(config)
        versus = config[:vs_baseline]
        config[:available] && config[:verified] && !config[:failed] && config[:repeats].positive? &&
          !versus.nil? && versus[:significant] && versus[:rss_pct].negative?
      end

      # @return [String, nil] what the candidate costs (throughput, latency, CPU), nil when nothing detectable
      def costs(config, work)
        found = moves(config[:vs_baseline], work, better: false).to_h.except(:memory).values
        found.join(" and ") unless found.empty?
      end

      # Who beats it and where, as its pair of series measured it (Comparison's beaten, from ParetoFront).
      def beaten(comparison, config, work)
        found = comparison.fetch(:beaten, {})[config[:name]]
        return unless found

        "#{found[:by]} was as good on every resolved figure and better: " \
          "#{figure_changes(found[:on], work).join(' and ')} against it"
      end

      # [[label key, "−12% req/s (95% CI …)"], …]: the resolved changes that are gains (better: true) or costs.
      def moves(versus, work, better:)
        FIGURES.filter_map do |pct, ci, significant, direction, label|
          next unless versus[significant] && versus[pct]

          gain = direction == :lower ? versus[pct].negative? : versus[pct].positive?
          [label, change(versus[pct], versus[ci], work[label])] if gain == better
        end
      end

      # The front's members other than the baseline that resolve any change, with their gains and costs; empty when
      # there is nothing to weigh (at most one such member, gaining only memory).
      def trade_offs(comparison, front, work)
        members = comparison[:configs].select { |config| front.include?(config[:name]) && config[:vs_baseline] }
        entries = members.filter_map { |config| trade_off(config, work) }
        entries.size > 1 || entries.any? { |entry| beyond_memory?(entry) } ? entries : []
      end

      def trade_off(config, work)
        gains = moves(config[:vs_baseline], work, better: true)
        costs = moves(config[:vs_baseline], work, better: false)
        return if gains.empty? && costs.empty?

        { name: config[:name], gains: gains.map(&:last), costs: costs.map(&:last), keys: gains.map(&:first) }
      end

      # keys: the figures an entry gains on (Summary::TradeOff keeps only the sentences).
      def beyond_memory?(entry) = (entry[:keys] - [:memory]).any?

      def winning_reason(comparison, winner, passed_over, work, trade_offs)
        versus = winner[:vs_baseline]
        saving = change(versus[:rss_pct], versus[:rss_pct_ci], work[:memory])
        sentence = "#{winner[:name]} used less memory than #{comparison[:baseline]}: #{saving}"
        # Without load there is no req/s, latency or CPU per request to have lost; claim only what was measured.
        sentence += ", with no detectable #{unharmed(versus, work)}" if versus[:rps_pct] || versus[:p99_pct]
        passed_over.each do |entry|
          sentence += "; #{entry[:name]} used less still but was passed over: #{entry[:why]}"
        end
        "#{sentence}.#{other_sides(winner, trade_offs)}#{ruby_change(winner)}"
      end

      # A Ruby change is the largest deployment there is: said once, in the reason, so it is not missed.
      def ruby_change(winner)
        return "" unless winner[:deploy_effort] == RUBY_CHANGE

        " Deploying it means #{DEPLOYS[RUBY_CHANGE]}: #{winner[:name]} ran on another Ruby than the baseline."
      end

      def unharmed(versus, work)
        return "loss of #{work[:rate]} or rise in #{work[:latency]}" unless versus[:cpu_pct]

        "loss of #{work[:rate]}, rise in #{work[:latency]} or in #{work[:cpu]}"
      end

      # Why the winner over the trade-offs' other members: memory first, among what costs nothing measurable.
      def other_sides(winner, trade_offs)
        others = trade_offs.select { |entry| entry[:name] != winner[:name] && beyond_memory?(entry) }
        return "" if others.empty?

        alternatives = others.map { |entry| "#{entry[:name]} gains #{entry[:gains].join(', ')}#{given_up(entry)}" }
        " It is recommended because memory comes first among configurations without a measured cost; " \
          "#{alternatives.join('; ')}: choose it instead if that matters more here."
      end

      def given_up(entry)
        entry[:costs].empty? ? "" : " for #{entry[:costs].join(', ')}"
      end

      def none(baseline, rejected)
        reason = if rejected.empty?
                   "No configuration used detectably less memory than #{baseline} in this run; keep #{baseline} " \
                     "(short-lived or single-threaded processes often show no difference)."
                 else
                   "Every configuration that used detectably less memory than #{baseline} cost too much elsewhere " \
                     "(#{rejected.map { |entry| "#{entry[:name]}: #{entry[:why]}" }.join('; ')}); keep #{baseline}."
                 end
        { name: nil, reason: reason, rejected: rejected }
      end

      def without_baseline(baseline)
        { name: nil, reason: "#{baseline}, the baseline, has no completed runs, so nothing could be compared " \
                             "with it; keep #{baseline} and run the comparison again.", rejected: [] }
      end

      # "−12% req/s (95% CI −18 … −6)"
      def change(pct, interval, what)
        "#{signed(pct)}% #{what} (95% CI #{interval.map { |bound| signed(bound) }.join(' … ')})"
      end

      # Whole percents from 10 on, one decimal below, so small but real changes do not print as 0.
      def signed(value)
        text = value.abs >= 10 ? value.abs.round.to_s : format("%.1f", value.abs)
        return text if text.match?(/\A0(\.0)?\z/)

        (value.negative? ? MINUS : "+") + text
      end

      private_class_method :against_rivals, :rivals, :memory_tie?, :tied, :not_told_apart, :differences, :gains,
                           :figure_changes,
                           :against, :memory_change, :measured, :rival_gains, :ruby_change, :memory_values, :effort,
                           :deploys, :weigh,
                           :usable_baseline?, :candidate?, :costs, :beaten, :moves, :trade_offs, :trade_off,
                           :beyond_memory?, :winning_reason, :unharmed, :other_sides, :given_up, :none,
                           :without_baseline, :candidates,
                           :change, :signed
    end
  end
end
