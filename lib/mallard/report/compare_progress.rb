# frozen_string_literal: true

module Mallard
  module Report
    # Reports a comparison as it runs: one line per run as it ends (on any stream), and on a
    # terminal the soak's live line while each run is under way.
    class CompareProgress
      def initialize(io)
        @io = io
        @live = Progress.new(io)
      end

      def run_started(label:, repeat:, position:, total:)
        @prefix = format("[%d/%d] %-15s #%d", position, total, label, repeat)
      end

      def run_finished(label:, summary:) # rubocop:disable Lint/UnusedMethodArgument -- the protocol's shape
        memory = summary["memory"]
        @io.puts format("%s  steady RSS %.1f MB · peak %.1f MB · %.0f req/s", @prefix,
                        memory["steady_rss_kb"].to_f / 1024, memory["peak_rss_kb"].to_f / 1024,
                        summary.dig("load", "rps").to_f)
      end

      def run_failed(label:, reason:)
        @io.puts "#{@prefix || label}  failed: #{Text.printable(reason)}"
      end

      # The soak's own events: only the live line is shown.
      def started(**) = nil

      def sample(total)
        @live.sample(total)
      end

      def finished(_summary)
        @live.finished(nil)
      end
    end
  end
end
