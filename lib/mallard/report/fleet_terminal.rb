# frozen_string_literal: true

module Mallard
  module Report
    # A fleet comparison for a person, in compare's table style: each set's selector, how many processes counted,
    # the median and range of their per-process medians, and B against A with its 95% interval; then how the
    # figures were made and why there is no verdict when there is none. Text from outside (selectors, labels, the
    # URL) is printed through Text.printable.
    class FleetTerminal
      include Formatting

      METRIC_NAMES = { "pss" => "PSS", "rss" => "RSS", "uss" => "USS", "malloc" => "malloc in use" }.freeze

      # @param summary [Summary::Fleet]
      def initialize(summary, color: Color::Plain.new)
        @summary = summary
        @sentences = FleetSentences.new(summary)
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard fleet — #{Text.printable(@summary.prometheus)}")
        io.puts "  #{metric_name} per process: each process's time-weighted median over #{window}; " \
                "B against A with its 95% interval"
        io.puts
        rows = [row(@summary.a, nil), row(@summary.b, @summary.change)]
        table_lines(header, rows).each { |line| io.puts "  #{line}" }
        io.puts
        notes.each { |line| io.puts "  #{line}" }
        io.puts "  Run directory: #{Text.printable(@summary.run_dir)}"
      end

      private

      def metric_name
        part = Probe::FleetQuery::PARTS[@summary.metric]
        return "the memory ledger's #{part}" if part

        METRIC_NAMES.fetch(@summary.metric, Text.printable(@summary.metric))
      end

      def window
        since = @summary.since_s.to_f
        span = if since >= 3600 then format("%gh", since / 3600)
               elsif since >= 60 then format("%gm", since / 60)
               else
                 "#{since.round}s"
               end
        "the last #{span} (step #{format('%g', @summary.step_s.to_f)} s)"
      end

      def header
        ["set", "selector", "processes", "median", "range", "vs A"]
      end

      def row(set, change)
        excluded = " (+#{set.excluded} too short)" if set.excluded.to_i.positive?
        [set.name, Text.printable(set.selector), "#{set.processes}#{excluded}", mib_of(set.median),
         set.min ? "#{mib_of(set.min)} … #{mib_of(set.max)}" : "—", versus_a(change)]
      end

      def versus_a(change)
        return "—" unless change

        change(change.pct, change.ci, change.finding, note: change.note)
      end

      def notes
        lines = [expectation_line, @sentences.interval].compact
        lines << @color.yellow(@sentences.too_few) if @sentences.too_few
        lines << gate_line(@summary.fail_over) if @summary.fail_over
        lines
      end

      # The lab against production, in the colour of its verdict.
      def expectation_line
        text = @sentences.expectation
        return unless text

        @summary.expectation.verdict == "as_predicted" ? @color.green(text) : @color.yellow(text)
      end

      def gate_line(gate)
        return @color.red("--fail-over: #{@sentences.fail_over}") if gate.failed

        "--fail-over #{format('%g', gate.threshold_pct)}%: passed"
      end
    end
  end
end
