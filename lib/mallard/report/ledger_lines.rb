# frozen_string_literal: true

module Mallard
  module Report
    # The memory ledger as terminal lines (for SoakTerminal): its verdict sentence (the presenter's), one stacked
    # line per process
    # (RSS as the sum of its parts, each with how it moved over the span judged), and each part's trend over all
    # processes. Formats Summary::Ledger; computes nothing.
    class LedgerLines
      include Formatting

      # @param ledger [Summary::Ledger, nil]
      # @param sentence [String, nil] SoakSentences#ledger
      # @param pss [String, nil] SoakSentences#ledger_pss
      def initialize(ledger, color:, sentence: nil, pss: nil)
        @ledger = ledger
        @color = color
        @sentence = sentence
        @pss = pss
      end

      # @return [Array<String>]
      def lines
        return [] unless @ledger

        [@sentence, *@ledger.processes.map { |process| stacked(process) }, @pss, trends, footnote].compact
      end

      private

      def stacked(process)
        parts = Words::LEDGER_SHORT.filter_map do |name, short|
          kb = process.parts[name]
          next if kb.nil?

          "#{short} #{megabytes(kb)}#{moved(kb - process.first_parts[name].to_i)}"
        end
        "pid #{process.pid}: RSS #{megabytes(process.rss_kb)} = #{parts.join(' + ')}"
      end

      def moved(delta_kb)
        delta_kb.abs < 1024 ? "" : format(" (%+.0f)", delta_kb / 1024.0)
      end

      def trends
        judged = @ledger.parts.select(&:slope)
        return if judged.empty?

        trends = judged.map { |part| "#{Words::LEDGER_SHORT[part.name]} #{part.verdict} #{signed(part.slope)}" }
        "trend (#{@ledger.unit}): #{trends.join(' · ')}"
      end

      def footnote
        text = format("%d readings every ~%s s · %s%% of RSS explained · a reading costs %s ms",
                      @ledger.readings.to_i, @ledger.interval_s || "?", @ledger.explained_pct || "?",
                      @ledger.cost_ms || "?")
        text += " · #{@ledger.not_read}" if @ledger.not_read
        @color.dim(text)
      end

      def megabytes(kb) = format("%.1f", kb / 1024.0)
      def signed(value) = format("%+.0f", value)
    end
  end
end
