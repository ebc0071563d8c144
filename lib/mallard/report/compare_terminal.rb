# frozen_string_literal: true

module Mallard
  module Report
    # A comparison for a person: how it ended, the verdict table against the baseline (with each
    # configuration's memory and live-set verdicts across its repeats), rows that could not be measured and
    # runs that were not counted, then the recommendation and how to deploy it. Text from outside is printed
    # through Text.printable.
    class CompareTerminal
      include Formatting

      # @param summary [Summary::Compare]
      def initialize(summary, color: Color::Plain.new)
        @summary = summary
        @sentences = CompareSentences.new(summary)
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard compare — #{Text.printable(@summary.target&.description || 'unknown target')}")
        render_ending(io)
        render_table(io) if @summary.configs.any?
        render_yjit(io)
        render_resolution(io)
        render_gc_suggestions(io)
        render_recommendation(io)
        io.puts
        io.puts "  Run directory: #{Text.printable(@summary.run_dir)}"
        io.puts "  #{@summary.cpu_layout.description}" if @summary.cpu_layout
        io.puts "  #{@sentences.agent_cost}" if @summary.agent_cost
      end

      private

      def render_ending(io)
        ended = ending(@summary, outcome: "recommendation")
        io.puts "  #{@summary.status == 'failed' ? @color.red(ended) : @color.yellow(ended)}" if ended
      end

      def render_table(io)
        io.puts "  #{@sentences.metric_name} per configuration, median of repeats with 95% intervals; " \
                "changes against #{Text.printable(@summary.baseline)}"
        io.puts "  #{@sentences.figures_from}" if @sentences.figures_from
        io.puts "  #{@sentences.like}" if @sentences.like
        io.puts
        (table + not_counted + CompareLedgerLines.new(@summary.configs).lines + tree_lines).each do |line|
          io.puts line.empty? ? "" : "  #{line}"
        end
      end

      # Each tree of several processes in parts, below the table.
      def tree_lines
        trees = @sentences.trees
        trees.empty? ? [] : ["", *trees]
      end

      def table
        rows = @summary.configs.map { |config| config.repeats.to_i.positive? ? measured(config) : unmeasured(config) }
        widths = header.each_index.map { |i| ([header] + rows.grep(Array)).map { |r| r[i].to_s.length }.max }
        [format_row(header, widths)] + rows.map { |row| row.is_a?(Array) ? format_row(row, widths) : row }
      end

      def header
        labels = work_labels(@summary.target)
        ["configuration", "steady memory", "vs baseline", "peak", labels[:rate], "vs baseline", labels[:cpu_column],
         "vs baseline", labels[:latency_column], "vs baseline", labels[:errors], "memory verdicts", "live-set verdicts"]
      end

      def measured(config)
        vs = config.vs_baseline
        [Text.printable(config.name), mib_interval(config.steady_rss_kb), versus(vs, :memory),
         mib(config.peak_rss_kb&.median), config.rps&.median&.round.to_s, versus(vs, :rps),
         cpu(config.cpu_ms_per_request), versus(vs, :cpu), format("%.1f", config.latency_ms&.p99&.median.to_f),
         versus(vs, :p99), config.errors.to_s, tally(config.verdicts), tally(config.live_set_verdicts)]
      end

      def cpu(estimate)
        estimate&.median ? format("%.3f", estimate.median) : "—"
      end

      def unmeasured(config)
        "#{Text.printable(config.name).ljust(15)} #{@color.dim(Text.printable(@sentences.unmeasured(config)))}"
      end

      def format_row(cells, widths)
        cells.each_with_index.map { |cell, i| cell.to_s.ljust(widths[i]) }.join("  ").rstrip
      end

      # Runs shown but left out of the figures, and why.
      def not_counted
        lines = @sentences.not_counted
        lines.empty? ? [] : ["", *lines]
      end

      def render_recommendation(io)
        words = @sentences.recommendation
        io.puts
        return render_no_recommendation(io) unless words

        io.puts @color.bold("Recommendation: #{Text.printable(@summary.recommendation.name || 'none')}")
        io.puts "  #{words.reason}"
        words.rejections.each { |name, why| io.puts "  passed over #{Text.printable(name)}: #{why}" }
        render_trade_offs(io, words.trade_offs)
        DeploySnippets.titled(@summary).each do |title, text|
          io.puts
          io.puts "  #{@color.bold(title)}"
          text.each_line { |line| io.puts "    #{line.chomp}" }
        end
      end

      # --yjit: each YJIT row's code and metadata beside its memory and speed, and the size chosen in each group.
      def render_yjit(io)
        yjit = @sentences.yjit
        return unless yjit.any?

        io.puts
        io.puts "  #{yjit.heading}:"
        table_lines(*yjit.table).each { |line| io.puts "    #{line}" }
        yjit.decided.each do |line, snippet|
          io.puts "  #{line}"
          snippet&.each_line { |text| io.puts "    #{text.chomp}" }
        end
      end

      # --gc: what the baseline's GC suggested, and why.
      def render_gc_suggestions(io)
        lines = @sentences.gc_suggestions
        return if lines.empty?

        io.puts
        io.puts "  GC settings the baseline's own GC suggested (--gc):"
        lines.each { |line| io.puts "    #{Text.printable(line)}" }
      end

      # --until-resolved: whether the repeats got every interval narrow enough, and which stayed too wide.
      def render_resolution(io)
        headline, *unresolved = @sentences.resolution
        return unless headline

        io.puts
        io.puts "  #{@summary.resolution.resolved ? headline : @color.yellow(headline)}"
        unresolved.each { |line| io.puts "    #{line}" }
      end

      # The configurations no other beats on every resolved figure, when there is more than one way to be better.
      def render_trade_offs(io, trade_offs)
        return if trade_offs.empty?

        io.puts "  trade-offs (no configuration beats these on every resolved figure):"
        trade_offs.each { |name, text| io.puts "    #{Text.printable(name)}: #{text}" }
      end

      # A failed comparison recommends nothing; why is its reason.
      def render_no_recommendation(io)
        io.puts @color.bold("No recommendation")
        io.puts "  #{Text.printable(@summary.reason)}" if @summary.reason
      end
    end
  end
end
