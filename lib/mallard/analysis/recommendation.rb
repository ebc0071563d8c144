# frozen_string_literal: true

module Mallard
  module Analysis
    # Picks the configuration to deploy from a Comparison: the one using least memory among those that use
    # detectably less than the baseline, work, and cost neither throughput nor p99 latency detectably.
    #
    # Only significant changes count, both for the memory saving and for the costs. A saving that the interval
    # does not separate from zero is not one to act on; a cost is held against a candidate only once measured,
    # so noise in req/s cannot veto a real saving.
    module Recommendation
      MINUS = "−"
      METRIC_LABELS = { "steady_pss_kb" => "steady-state PSS", "steady_rss_kb" => "steady-state RSS" }.freeze
      # What throughput and p99 latency are of: requests, or a job worker's jobs and their wait in the queue.
      WORK = { rate: "req/s", latency: "p99 latency" }.freeze
      JOB_WORK = { rate: "jobs/s", latency: "p99 queue wait" }.freeze

      module_function

      # @param comparison [Hash] as returned by Comparison.call
      # @param jobs [Boolean] a job worker's comparison
      # @return [Hash] { name:, reason:, rejected: [{ name:, why: }] } (how to deploy it is the views' to render,
      #   from the catalog: Report::DeploySnippets)
      def call(comparison, jobs: false)
        baseline = comparison[:baseline]
        return without_baseline(baseline) unless usable_baseline?(comparison)

        work = jobs ? JOB_WORK : WORK
        candidates = comparison[:configs].select { |config| candidate?(config) }
                                         .sort_by { |config| config[:steady_rss_kb][:median] }
        rejected = candidates.filter_map { |config| (why = costs(config, work)) && { name: config[:name], why: why } }
        # Every candidate below the winner was rejected, in the same order: those are the ones passed over.
        place = candidates.index { |config| rejected.none? { |entry| entry[:name] == config[:name] } }
        return none(baseline, rejected) unless place

        winner = candidates[place]
        { name: winner[:name], reason: winning_reason(comparison, winner, rejected.first(place), work),
          rejected: rejected }
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

      # @return [String, nil] what the candidate costs, nil when nothing detectable
      def costs(config, work)
        versus = config[:vs_baseline]
        slower = versus[:rps_significant] && versus[:rps_pct].negative?
        laggier = versus[:p99_significant] && versus[:p99_pct].positive?
        found = []
        found << change(versus[:rps_pct], versus[:rps_pct_ci], work[:rate]) if slower
        found << change(versus[:p99_pct], versus[:p99_pct_ci], work[:latency]) if laggier
        found.join(" and ") unless found.empty?
      end

      def winning_reason(comparison, winner, passed_over, work)
        versus = winner[:vs_baseline]
        saving = change(versus[:rss_pct], versus[:rss_pct_ci], METRIC_LABELS.fetch(comparison[:metric]))
        sentence = "#{winner[:name]} used less memory than #{comparison[:baseline]}: #{saving}"
        # Without load there is no req/s or latency to have lost; claim only what was measured.
        if versus[:rps_pct] || versus[:p99_pct]
          sentence += ", with no detectable loss of #{work[:rate]} or rise in #{work[:latency]}"
        end
        passed_over.each do |entry|
          sentence += "; #{entry[:name]} used less still but was passed over for #{entry[:why]}"
        end
        "#{sentence}."
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

      private_class_method :usable_baseline?, :candidate?, :costs, :winning_reason, :none,
                           :without_baseline, :change, :signed
    end
  end
end
