# frozen_string_literal: true

module Mallard
  module Report
    # compare --yjit's words, for both views (through CompareSentences#yjit): the YJIT table's heading and cells (each
    # YJIT row's code and metadata memory, read inside the app in its run with the agent, beside its steady memory,
    # req/s and p99 from the counted runs), and each group's decision (Summary::YjitChoice) with the changes it rests
    # on. Plain text, no colour or markup.
    class YjitSentences
      include Formatting

      # @param summary [Summary::Compare]
      def initialize(summary)
        @summary = summary
        @rows = Array(summary.rows).select(&:yjit)
        @work = work_labels(summary.target)
      end

      # Every sentence this gives, for a check that each view shows them all.
      def all = any? ? [heading, *decisions] : []

      # Whether the comparison had YJIT rows (--yjit as an axis of rows).
      def any? = @rows.any?

      def heading
        "YJIT per configuration: its code and metadata (MiB, summed over processes) read inside the app in the " \
          "run with mallard's agent, beside #{metric_name}, #{@work[:rate]} and #{@work[:latency]} from the counted " \
          "runs"
      end

      # The table both views place: its header, then a row of cells per measured YJIT row.
      # @return [Array(Array<String>, Array<Array<String>>)]
      def table
        header = ["configuration", "YJIT", "YJIT code", "YJIT metadata", "steady memory", @work[:rate],
                  @work[:latency_column]]
        [header, @rows.filter_map { |row| cells(row, config(row.name)) }]
      end

      # One line per group of rows that differ only in YJIT: the size chosen and why, or why none was.
      def decisions = decided.map(&:first)

      # Each decision with how to deploy the size chosen (RubyChangeSnippets.yjit; nil where none was chosen).
      # @return [Array(String, String)]
      def decided
        Array(@summary.yjit_choices).map do |choice|
          [decision(choice), (RubyChangeSnippets.yjit(chosen(choice).mode) if choice.choice)]
        end
      end

      private

      def cells(row, config)
        return unless config&.repeats.to_i.positive?

        [Text.printable(row.name), mode(row.yjit), mib(config.yjit_code_kb), mib(config.yjit_metadata_kb),
         mib(config.steady_rss_kb&.median), config.rps&.median&.round.to_s,
         format("%.1f", config.latency_ms&.p99&.median.to_f)]
      end

      def mode(yjit) = YjitMode.size_mib(yjit) ? "on, #{yjit} MiB" : yjit

      def config(name) = Array(@summary.configs).find { |config| config.name == name }

      def decision(choice)
        group = Text.printable(choice.group)
        case choice.ending
        when "no_gain" then "#{group}: YJIT does not pay for its memory here: #{no_gain(choice)}"
        when "no_interval"
          "#{group}: no YJIT size chosen: a row ran once, so a change has no interval to tell it by " \
          "(--repeat 2 or more)"
        when "unmeasured" then "#{group}: no YJIT size chosen: no YJIT row was measured"
        else "#{group}: YJIT #{size(chosen(choice))} (#{Text.printable(choice.choice)}): #{why_chosen(choice)}"
        end
      end

      def chosen(choice) = choice.options.find { |option| option.name == choice.choice }

      def size(option)
        return "with a #{option.size_mib} MiB code region" if option.size_mib

        "on, with its Ruby's own code region"
      end

      # "the smallest code region whose req/s is not told apart from the best YJIT row's (…), and against yjit-off …"
      def why_chosen(choice)
        option = chosen(choice)
        best = Text.printable(choice.best)
        against_best = if option.name == choice.best
                         best_itself(choice)
                       else
                         "the smallest code region whose #{@work[:rate]} is not told apart from the best YJIT row's, " \
                           "#{best}'s (against it: #{@work[:rate]} #{change(option.vs_best)})"
                       end
        choice.off ? "#{against_best}; against #{Text.printable(choice.off)}: #{against_off(option)}" : against_best
      end

      # The chosen row is the best: the smaller regions, if any, served less.
      def best_itself(choice)
        smaller = choice.options.index { |option| option.name == choice.choice }.positive?
        "the best YJIT row's #{@work[:rate]}#{', and every smaller region served less' if smaller}"
      end

      # No YJIT row's req/s was resolved above off's: what each did, and the memory it used more.
      def no_gain(choice)
        off = Text.printable(choice.off)
        each = choice.options.map { |option| "#{Text.printable(option.name)}: #{against_off(option)}" }
        "no YJIT row's #{@work[:rate]} was told above #{off}'s (#{each.join('; ')})"
      end

      def against_off(option)
        "#{@work[:rate]} #{change(option.vs_off)} and #{metric_name} #{change(option.memory_vs_off)}"
      end

      # A change with its interval, "+0.5% (-2.0 … +3.1, not told apart)" where the interval does not clear the noise.
      def change(change)
        return "—" if change.nil? || change.pct.nil?
        return Words.change(change.pct, change.ci) if change.finding == "different" || change.ci.nil?

        "#{Words.change(change.pct)} (#{Words.bounds(change.ci)}, not told apart)"
      end

      def metric_name = Words::MEMORY.fetch(@summary.metric || "steady_rss_kb")
    end
  end
end
