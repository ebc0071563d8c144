# frozen_string_literal: true

module Mallard
  module Report
    # Reports a soak as it runs. On a terminal: one line rewritten in place (elapsed / total,
    # memory now, request rate); elsewhere only the start, nothing animated. finished gets the run's
    # Summary::Soak; the soak's own view prints it.
    class Progress
      def initialize(io)
        @io = io
        @live = io.respond_to?(:tty?) && io.tty?
        @previous = nil
      end

      def started(target:, run_dir:, duration:, load:, cpus: nil)
        @duration = duration
        @io.puts "mallard: measuring #{Text.printable(target)}"
        @io.puts "mallard: load from #{load}" if load
        @io.puts "mallard: #{cpus}" if cpus
        @io.puts "mallard: run directory #{Text.printable(run_dir)}"
      end

      def sample(total)
        return unless @live

        @io.print "\r\e[K#{line(total)}"
        @previous = total
      end

      def finished(_summary)
        @io.print "\r\e[K" if @live
      end

      # `soak --until-decided` looked at the run so far: what it still has not decided, or that it has.
      def undecided(elapsed:, budget:, parts:)
        @io.print "\r\e[K" if @live
        @io.puts "mallard: #{UntilDecidedSentences.look(elapsed: elapsed, budget: budget, parts: parts)}"
      end

      private

      def line(total)
        elapsed = @duration ? format("%.0f / %.0f s", total[:t], @duration) : format("%.0f s", total[:t])
        parts = [elapsed, format("RSS %.1f MiB", total[:rss_kb] / 1024.0)]
        parts << format("%.0f req/s", rate(total)) if @previous && total[:requests]
        "  #{parts.join(' · ')}"
      end

      def rate(total)
        seconds = total[:t] - @previous[:t]
        seconds.positive? ? (total[:requests] - @previous[:requests]) / seconds : 0
      end
    end

    # The same protocols (soak and compare), saying nothing: for --json, whose output must stay one
    # JSON object, and for callers that render their own view.
    class SilentProgress
      def started(**) = nil
      def sample(_total) = nil
      def finished(_summary) = nil
      def run_started(**) = nil
      def run_finished(**) = nil
      def run_invalid(**) = nil
      def run_failed(**) = nil
      def round_added(**) = nil
      def undecided(**) = nil
    end
  end
end
