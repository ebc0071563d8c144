# frozen_string_literal: true

module Mallard
  module Report
    # A comparison's memory ledgers beside its savings, for CompareTerminal: per configuration, each part of RSS
    # (the median over its counted runs) and its memory change against the baseline, so the reader sees which
    # part a configuration shrank (jemalloc the malloc held free, arena2 the arenas, trim free pages returned)
    # or grew (YJIT's code). Formats Summary::Config#ledger_kb; computes nothing.
    class CompareLedgerLines
      include Formatting

      # @param configs [Array<Summary::Config>]
      def initialize(configs)
        @configs = configs.select(&:ledger_kb)
      end

      # @return [Array<String>] nothing when no configuration has a ledger
      def lines
        return [] if @configs.empty?

        width = @configs.map { |config| Text.printable(config.name).length }.max
        ["", "Where the memory is (memory ledger, MiB, median of repeats):"] +
          @configs.map { |config| "#{Text.printable(config.name).ljust(width)}  #{parts(config)}#{saving(config)}" }
      end

      private

      def parts(config)
        Words::LEDGER_SHORT.filter_map do |name, short|
          kb = config.ledger_kb[name]
          format("%s %.1f", short, kb / 1024.0) if kb
        end.join(" · ")
      end

      def saving(config)
        pct = config.vs_baseline&.rss_pct
        pct ? format("  (steady memory %+.1f%%)", pct) : ""
      end
    end
  end
end
