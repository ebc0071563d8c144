# frozen_string_literal: true

module Mallard
  module Report
    # The GC timeline and the live set as terminal lines (for SoakTerminal): what the analysis found
    # (Summary::Gc, Summary::LiveSet), formatted, with sparklines of the live set and of GC time.
    class GcLines
      include Formatting

      # @param summary [Summary::Soak]
      # @param sentences [SoakSentences] the summary's sentences
      def initialize(summary, sentences, color:)
        @summary = summary
        @sentences = sentences
        @gc = summary.gc
        @live_set = summary.live_set
        @series = summary.series || Summary::SoakSeries.new
        @color = color
      end

      # @return [Array<String>]
      def live_set
        return [] unless @live_set

        [live_set_verdict, @color.dim("judged on #{@sentences.live_set_basis}"),
         sparkline(@series.live_set, "live set")].compact
      end

      # @return [Array<String>]
      def gc
        return [] unless @gc

        [runs, dropped, pauses, causes, *meanings, @sentences.gc_correlation, sparkline(*time_series),
         *settings].compact
      end

      private

      def live_set_verdict
        text = @color.bold(@live_set.verdict)
        return "#{text} — #{@sentences.live_set_slope}" unless @live_set.slope

        ["#{text} · #{@sentences.live_set_slope}", @sentences.live_set_hint].compact.join(" · ")
      end

      def runs
        time = @gc.time_ms ? format(" · %.2f s", @gc.time_ms / 1000.0) : ""
        shares = [(format("%.1f%% of wall", @gc.wall_share * 100) if @gc.wall_share),
                  (format("%.1f%% of CPU", @gc.cpu_share * 100) if @gc.cpu_share)].compact
        live = @gc.heap_live_slots || Summary::Span.new
        "#{@sentences.gc_runs}#{time}#{if shares.any?
                                         " (#{shares.join(', ')})"
                                       end} · live slots #{live.start} → #{live.end}"
      end

      def dropped
        return unless @gc.dropped.to_i.positive?

        "#{@color.yellow('!')} #{@gc.dropped} GCs lost by the per-GC timeline, and left out of runs, pauses and causes"
      end

      def pauses
        pauses = @sentences.gc_pauses
        return @gc.note && @color.dim(@gc.note) unless pauses

        "pauses #{pauses}"
      end

      def causes
        parts = [["major by", @gc.major_by], ["minor by", @gc.minor_by]].filter_map do |label, counts|
          "#{label} #{counted(counts)}" unless counts.to_h.empty?
        end
        parts.join(" · ") unless parts.empty?
      end

      # A line for each cause that occurred, saying what it means.
      def meanings
        @sentences.gc.causes.map { |cause, meaning| @color.dim("  #{cause}: #{meaning}") }
      end

      def settings
        Array(@gc.settings).zip(@sentences.gc_settings).map do |setting, line|
          setting.ignored? ? "#{@color.yellow('!')} #{line}" : line
        end
      end

      # Each GC's pause with the agent's events, else GC time per second.
      def time_series
        return [@series.gc_pause_ms, "GC pause per GC, ms"] if @series.gc_pause_ms

        [@series.gc_ms_per_s, "GC time, ms per s"]
      end

      def sparkline(points, label)
        points = Array(points).reject { |point| point.last.nil? }
        return if points.size < 2

        "#{Sparkline.render(points.map(&:last))}  #{@color.dim("#{label} over #{points.last.first.round} s")}"
      end
    end
  end
end
