# frozen_string_literal: true

module Mallard
  module Report
    # A plan for a person: the count chosen and its check, the runs, the predictions around the count, the parts and
    # how they were computed, and the chosen shape's deploy snippets (ShapeSnippets). The sentences are PlanSentences'.
    class PlanTerminal
      include Formatting

      # @param summary [Summary::Plan]
      def initialize(summary, color: Color::Plain.new)
        @summary = summary
        @sentences = PlanSentences.new(summary)
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard plan — #{Text.printable(@summary.target&.description || 'unknown target')}")
        ending = @sentences.plan_ending
        io.puts "  #{@color.red(ending)}" if ending
        [@sentences.choice, @sentences.check].compact.each { |line| io.puts "  #{line}" }
        tables(io)
        [@sentences.parts, @sentences.how, @sentences.watched].compact.each { |line| io.puts "  #{line}" }
        snippets(io)
        io.puts "  Run directory: #{Text.printable(@summary.run_dir)}"
      end

      private

      def tables(io)
        table(io, @sentences.run_header, @summary.runs.map { |run| @sentences.run_row(run) })
        table(io, @sentences.prediction_header,
              @summary.predictions.map { |prediction| @sentences.prediction_row(prediction) })
      end

      def table(io, header, rows)
        return if rows.empty?

        io.puts
        table_lines(header, rows).each { |line| io.puts "  #{line}" }
        io.puts
      end

      def snippets(io)
        ShapeSnippets.titled(@summary).each do |title, text|
          io.puts
          io.puts "  #{@color.bold(title)}"
          text.each_line { |line| io.puts "    #{line.chomp}" }
        end
        io.puts
      end
    end
  end
end
