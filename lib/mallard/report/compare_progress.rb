# frozen_string_literal: true

module Mallard
  module Report
    # Reports a comparison as it runs: one line per run as it ends (on any stream), and on a
    # terminal the soak's live line while each run is under way. A run's line shows the memory figure
    # the comparison's table is made of (steady PSS once runs had several processes, else steady RSS).
    class CompareProgress
      include Formatting

      def initialize(io)
        @io = io
        @live = Progress.new(io)
      end

      # Prints the position and total it is given: the comparison counts its runs, retries included.
      def run_started(label:, repeat:, position:, total:)
        @prefix = format("[%d/%d] %-15s #%d", position, total, Text.printable(label), repeat)
      end

      # @param summary [Summary::Soak]
      def run_finished(label:, summary:)
        memory = summary.memory
        figure = Analysis::MemoryMetric.pss?(memory&.metric) ? "steady PSS" : "steady RSS"
        verdict = summary.verdict&.memory
        verdict = "#{verdict} after #{summary.until_decided.decided_s.round} s" if summary.until_decided&.decided_s
        rate = Analysis::Headline.of(summary).rate
        say(label, format("%s %s · peak %s · %.0f %s%s", figure, mib(memory&.steady_kb), mib(memory&.peak_rss_kb),
                          rate.to_f, work_labels(summary.target)[:rate], verdict ? " · #{verdict}" : ""))
      end

      # A run shown but not counted: it is no valid measurement.
      def run_invalid(label:, problems:)
        say(label, "not counted: #{Array(problems).map { |problem| Text.printable(problem) }.join('; ')}")
      end

      def run_failed(label:, reason:)
        say(label, "failed: #{Text.printable(reason)}")
      end

      # --until-resolved adds a round: which intervals are still too wide.
      # @param summary [Summary::Compare] the comparison as it stands
      def round_added(round:, summary:)
        unresolved = CompareSentences.new(summary).unresolved
        shown = unresolved.first(3)
        shown << "#{unresolved.size - 3} more" if unresolved.size > 3
        @io.puts "mallard: adding round #{round}: not resolved yet: #{shown.join('; ')}"
      end

      # The soak's own events: only the live line is shown; a row's `--until-decided` looks are in its summary.
      def started(**) = nil
      def undecided(**) = nil

      def sample(total)
        @live.sample(total)
      end

      def finished(_summary)
        @live.finished(nil)
      end

      private

      # A line ends its run: the next run's line, or a row that fails before any run started, must not
      # carry this one's position.
      def say(label, text)
        @io.puts "#{@prefix || Text.printable(label)}  #{text}"
        @prefix = nil
      end
    end
  end
end
