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
        "no_gc_figures" => "the baseline's GC could not be read (its soak did not complete), so nothing was suggested",
        "boot_left_heap" => "%<live_pct>s%% of the %<slots_start>s slots the heap held as the load began were live " \
                            "at its end: the boot left far more than the app keeps",
        "old_uncollected" => "no major GC of the app's ran under load, so the %<old_start>s old objects the boot " \
                             "left were never collected; a full GC once it has booted frees those that are garbage",
        "boot_heap_kept" => "the boot left no more heap than the app keeps, and major GCs ran under load",
        "no_boot_hook" => "mallard runs a line after boot only in a Rack app it serves with Puma"
      }.freeze

      # @param summary [Summary::Compare]
      def initialize(summary)
        @summary = summary
      end

      # Every sentence this summary gives, for a check that each view shows them all.
      def all
        [like, metric_name, figures_from, *not_counted, *resolution, *gc_suggestions, agent_cost, *yjit.all, *trees,
         *recommendation&.all].compact
      end

      # --like: "Set as production runs ({job="web"} at http://prom:9090, from its exporter): Puma's pool threads 16,
      # workers 2, requests GET / 75%, GET /rows 25% (not sent, of production's requests: 10% by methods other than
      # GET). Still unlike production in Ruby (3.1.2 in the lab, 3.3.8 in production)."
      def like
        like = @summary.like
        return unless like

        took = like.applied.to_h.map { |name, value| "#{Words::CONDITIONS.fetch(name, name)} #{value}" }
        took << requests(like) if requests(like)
        set = took.empty? ? "nothing the command line had not set" : took.join(", ")
        still = like.differing.empty? ? "" : " Still unlike production in #{Words.condition_gaps(like.differing)}."
        "Set as production runs (#{Text.printable(like.selector)} at #{Text.printable(like.prometheus)}, from its " \
          "exporter): #{set}.#{still}"
      end

      # The request mix the load took, or its own paths where it could take none of production's.
      def requests(like)
        return "requests #{Words.request_mix(like.mix)}#{mix_left(like.mix_left)}" unless like.mix.empty?

        "its own paths#{mix_left(like.mix_left)}" unless like.mix_left.empty?
      end

      def mix_left(left)
        return "" if left.empty?

        reasons = left.map { |one| "#{Words.share(one.share)} #{Words::MIX_LEFT.fetch(one.reason, one.reason)}" }
        " (not sent, of production's requests: #{reasons.join(', ')})"
      end

      # Each tree of several processes in parts, and its shared memory against the baseline's (TreeSentences).
      def trees = TreeSentences.new(@summary).all

      # compare --yjit's table and decisions.
      # @return [YjitSentences]
      def yjit = YjitSentences.new(@summary)

      # Which runs the table's figures come from, and which explain them; nil for an older comparison, whose every run
      # carried the agent.
      def figures_from
        case @summary.figures_from
        when "clean"
          "Figures from runs with no mallard code in the app (read from outside it); verdicts and the ledger from " \
          "one run of each configuration with mallard's agent."
        when "instrumented"
          "A job worker's jobs are counted by mallard's agent inside it, so every run here carried the agent: read " \
          "its cost into the figures."
        end
      end

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
                       .transform_values { |figure| figure.is_a?(Integer) ? grouped(figure) : figure }
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

      # What the agent costs the app (Summary::AgentCost), in a paragraph: each figure's change pooled over the
      # configurations' pairs, with its interval. nil when no run carried the agent beside runs without it.
      def agent_cost
        cost = @summary.agent_cost
        return cost&.sentence if cost.nil? || cost.sentence
        return agent_unmeasured(cost.unmeasured) if cost.unmeasured

        "The agent's cost here (#{agent_pairs(cost)}): #{agent_changes(cost)}. #{agent_reading(cost)}"
      end

      # Why a configuration has no figures: its failure (with what load a saturated app would take), or why it was not
      # run. Quotes the subject's command.
      def unmeasured(config)
        return "unavailable: #{config.unavailable_reason || 'not run'}" unless config.failed

        "failed: #{[config.failed, SoakSentences.saturation(config.saturation)].compact.join('; ')}"
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
        "The agent's cost here was not measured: no configuration's run with it was a measurement " \
          "(#{Text.printable(reason)}), so the table's figures are not explained by an instrumented run either."
      end

      # What was set against what: an older comparison's one run without the agent against the baseline's with it.
      def agent_pairs(cost)
        n = cost.configurations
        return "one run without it against #{Text.printable(@summary.baseline)}'s runs with it" unless n

        "each configuration's run with it against its runs without it, #{plural(n, 'configuration')}"
      end

      # "req/s -8.6% (-12.0 … -5.1), CPU per request +9.6% (…), …": the agent's runs are a web app's, so its figures
      # are requests'.
      def agent_changes(cost)
        names = Words::WORK.fetch("requests")
        { rps: names[:rate], cpu: names[:cpu], p99: names[:latency], rss: "steady memory" }.filter_map do |figure, name|
          pct = cost.public_send(:"#{figure}_pct")
          "#{name} #{Words.change(pct, cost.public_send(:"#{figure}_pct_ci"))}" if pct
        end.join(", ")
      end

      # What the reader may take from it: which figures it moved beyond doubt, or that one pair decides nothing.
      def agent_reading(cost)
        return "One pair has no interval, so this is an estimate, not a finding." unless cost.rps_pct_ci

        moved = { rps: "req/s", cpu: "CPU", p99: "p99", rss: "memory" }
                .select { |figure, _| cost.public_send(:"#{figure}_finding") == "different" }.values
        return "No figure moved beyond the runs' own noise." if moved.empty?

        "It moved #{moved.join(', ')} beyond the runs' noise: what the runs with it explain (verdicts, ledger), read " \
          "with that in mind."
      end

      def problems(name)
        row = Array(@summary.rows).find { |candidate| candidate.name == name }
        Array(row&.invalid_runs).flat_map { |run| Array(run.problems) }.uniq.map { |problem| Text.printable(problem) }
      end
    end
  end
end
