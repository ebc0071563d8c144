# frozen_string_literal: true

module Mallard
  module Report
    # A budget for a person: the verdict, the figures table, what to do when it failed, and how it was measured. The
    # sentences are BudgetSentences'.
    class BudgetTerminal
      include Formatting

      # @param summary [Summary::Budget]
      def initialize(summary, color: Color::Plain.new)
        @summary = summary
        @sentences = BudgetSentences.new(summary)
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard budget — #{Text.printable(@summary.target&.description || 'unknown target')}")
        ending = @sentences.budget_ending
        io.puts "  #{@color.red(ending)}" if ending
        verdict(io)
        table(io)
        @sentences.advice.each { |line| io.puts "  #{@color.bold(line)}" }
        [@sentences.repeats, @sentences.how].compact.each { |line| io.puts "  #{line}" }
        io.puts "  Run directory: #{Text.printable(@summary.run_dir)}"
      end

      private

      def verdict(io)
        line = @sentences.verdict
        return unless line

        io.puts "  #{@summary.over? ? @color.red(line) : @color.green(line)}"
      end

      def table(io)
        rows = @summary.entries.flat_map { |entry| entry.figures.map { |figure| @sentences.figure_row(entry, figure) } }
        return if rows.empty?

        io.puts
        table_lines(@sentences.figure_header, rows).each { |line| io.puts "  #{line}" }
        io.puts
      end
    end
  end
end
