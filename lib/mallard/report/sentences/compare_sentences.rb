# frozen_string_literal: true

module Mallard
  module Report
    # The sentences a comparison's terminal and HTML views share, written once. Plain text, no colour or markup.
    class CompareSentences
      include Formatting

      # compare --gc: what each finding of Analysis::GcCandidates means, with its figures.
      GC_FINDINGS = {
        "heap_grew" => "the heap grew under load (%<pages_start>s → %<pages_end>s pages); Ruby grows it 1.8× at a time",
        "heap_mostly_free" => "%<live_pct>s%% of the heap's slots were live under load: a heap grown 1.8× at a " \
                              "time, mostly empty",
        "heap_flat" => "the heap neither grew under load nor was mostly empty",
        "majors_ran" => "the app ran %<majors>s major GCs under load, and only a major GC frees empty pages",
        "no_majors" => "no major GC of the app's ran under load, so no page would be freed",
        "malloc_triggered" => "%<malloc_gcs>s of %<runs>s GCs were triggered by malloc'ed memory passing its limit",
        "few_malloc_gcs" => "%<malloc_gcs>s of %<runs>s GCs were triggered by malloc'ed memory, under a fifth",
        "no_gc_figures" => "the baseline's GC could not be read (its soak did not complete), so nothing was suggested"
      }.freeze

      # @param summary [Summary::Compare]
      def initialize(summary)
        @summary = summary
      end

      # Every sentence this summary gives, for a check that each view shows them all.
      def all = [metric_name, *not_counted, *resolution, *gc_suggestions, agent_cost, *recommendation&.all].compact

      # Why the baseline's own GC suggested each RUBY_GC_* set (compare --gc), or did not: one line each.
      def gc_suggestions
        Array(@summary.gc_suggestions).map do |found|
          line = "#{found.name}: #{gc_finding(found)}"
          next "not suggested, #{line}" unless found.suggested

          "#{line} — #{found.settings.map { |variable, value| "#{variable}=#{value}" }.join(' ')}"
        end
      end

      # A GC suggestion's finding with its figures (only those its words name: format warns of the rest).
      def gc_finding(found)
        why = GC_FINDINGS.fetch(found.finding) { found.finding }
        figures = found.figures.to_h.transform_keys(&:to_sym)
        figures[:live_pct] = (figures[:live_share].to_f * 100).round
        format(why, **figures.slice(*why.scan(/%<(\w+)>/).flatten.map(&:to_sym)))
      end

      # The words of the recommendation; nil for a failed comparison, which recommends nothing.
      # @return [RecommendationSentences, nil]
      def recommendation
        return unless @summary.recommendation

        RecommendationSentences.new(@summary.recommendation, unit: Words.unit_of(@summary.target),
                                                             metric: @summary.metric)
      end

      # compare --until-resolved: whether the repeats got every interval narrow enough, and which stayed too wide:
      # the headline, then one line per interval still too wide. Empty without --until-resolved.
      def resolution
        resolution = @summary.resolution
        return [] unless resolution

        repeats = plural(@summary.configs.map { |config| config.repeats.to_i }.max.to_i, "repeat")
        if resolution.resolved
          return ["Resolved: every memory and CPU interval is within ±#{resolution.pct} points after #{repeats}"]
        end

        ["Not resolved to ±#{resolution.pct} points after #{repeats} (the budget, or mallard's limit of rounds, " \
         "was spent):", *unresolved]
      end

      # Each interval --until-resolved left too wide, a line each: "jemalloc CPU per request: ±12.0 points",
      # "mimalloc memory: no interval yet".
      def unresolved
        resolution = @summary.resolution
        return Array(resolution&.unresolved).map { |line| Text.printable(line) } if resolution&.worded?

        cpu = Words::WORK.fetch(Words.unit_of(@summary.target))[:cpu]
        Array(resolution&.too_wide).map do |entry|
          width = entry.half_width ? format("±%.1f points", entry.half_width) : "no interval yet"
          "#{Text.printable(entry.name)} #{entry.figure == 'cpu' ? cpu : entry.figure}: #{width}"
        end
      end

      # What the agent cost the baseline (Summary::AgentCost), in a paragraph: the floor under mallard's absolute
      # figures. nil when the comparison did not run without it.
      def agent_cost
        cost = @summary.agent_cost
        return cost&.sentence if cost.nil? || cost.sentence
        return agent_unmeasured(cost.unmeasured) if cost.unmeasured

        format("The agent's cost here: %s served %.1f req/s with it (median of %d) and %.1f without it (one run): " \
               "%s%s. %s Read mallard's absolute figures with this in mind. %s", Text.printable(@summary.baseline),
               cost.rps_with, cost.runs_with, cost.rps_without, agent_changes(cost), agent_memory(cost),
               agent_noise(cost), agent_differences(cost))
      end

      # The memory figure the table compares.
      def metric_name
        @summary.metric == "steady_pss_kb" ? "Steady PSS (summed over processes)" : "Steady RSS"
      end

      # One line per configuration whose runs were shown but left out of its figures, and why.
      def not_counted
        Array(@summary.configs).select { |config| config.invalid_runs.to_i.positive? }.map do |config|
          why = problems(config.name)
          "#{Text.printable(config.name)}: #{plural(config.invalid_runs, 'run')} not counted" \
            "#{": #{why.join('; ')}" if why.any?}"
        end
      end

      private

      def agent_unmeasured(reason)
        "The agent's cost here was not measured: #{Text.printable(@summary.baseline)}'s run without it was not a " \
          "measurement (#{Text.printable(reason)}), so mallard's absolute req/s and CPU figures are read without " \
          "knowing that floor."
      end

      # "-8.6% req/s, CPU per request +9.6%": the agent round is a web app's, so its figures are requests'.
      def agent_changes(cost)
        names = Words::WORK.fetch("requests")
        rate = "#{Words.change(cost.rps_pct)} #{names[:rate]}"
        cost.cpu_pct ? "#{rate}, #{names[:cpu]} #{Words.change(cost.cpu_pct)}" : rate
      end

      # The agent's code moves Ruby's heap lottery; in a small app that is a difference in memory of its own.
      def agent_memory(cost)
        return "" unless cost.rss_pct

        "; steady RSS #{mib(cost.steady_rss_kb_with)} with it, #{mib(cost.steady_rss_kb_without)} without " \
          "(#{Words.change(cost.rss_pct)})"
      end

      # One run without it has no interval: what can be said is how far the runs with it spread.
      def agent_noise(cost)
        return "One run without it has no interval." unless cost.rps_spread_pct

        format("One run without it has no interval, and the runs with it spread from %.1f to %.1f req/s (%.1f%% of " \
               "their median): a difference smaller than that is not told from run-to-run noise.",
               *cost.rps_with_range, cost.rps_spread_pct)
      end

      def agent_differences(cost)
        return "Every configuration carries it alike." unless cost.memory_moved

        format("It moved this app's steady memory by more than two runs of one app settle apart (%.0f%%), so the " \
               "configurations' differences in memory may be partly its doing.", Analysis::Significance::RUN_TO_RUN_PCT)
      end

      def problems(name)
        row = Array(@summary.rows).find { |candidate| candidate.name == name }
        Array(row&.invalid_runs).flat_map { |run| Array(run.problems) }.uniq.map { |problem| Text.printable(problem) }
      end
    end
  end
end
