# frozen_string_literal: true

module Mallard
  module Report
    # The sentences a heap run's terminal and HTML views share, written once. Plain text, no colour or markup.
    class HeapSentences
      include Formatting

      DATA_WARNING = "These dump files hold the app's data: every string in its heap, which can include " \
                     "passwords, tokens, keys and personal data. mallard shows only sizes and allocation " \
                     "sites from them, never a value, and writes its own dumps mode 0600; share, copy " \
                     "and keep them with care, and delete them when done."

      # @param summary [Summary::Heap]
      def initialize(summary)
        @summary = summary
      end

      # Every sentence this summary gives, for a check that each view shows them all.
      def all
        [retained, window, significant, DATA_WARNING, *[@summary.latency&.during, @summary.latency&.outside]
          .compact.map { |figures| probe(figures) }].compact
      end

      # What dump C still holds of the window: "2,491 objects, 266.2 KiB".
      def retained
        @summary.retained_count && "#{count(@summary.retained_count)} objects, #{byte_size(@summary.retained_bytes)}"
      end

      # The window in generations and what it means; nil when unknown.
      def window
        words = window_words
        "#{words}: allocated after dump A, up to dump B, and still alive in dump C" if words
      end

      # The window alone: "generations 11 to 12".
      def window_words
        first = @summary.window_first
        last = @summary.window_last
        return unless last

        first == last ? "generation #{last}" : "generations #{first} to #{last}"
      end

      def significant
        @summary.significant_bytes && "a site that retains #{byte_size(@summary.significant_bytes)} or more is " \
                                      "significant"
      end

      # mallard's own requests to the app, during the dumps or outside them.
      # @param figures [Summary::HeapProbe, nil]
      def probe(figures)
        return "no dump was taken" unless figures
        return "none sent" if figures.requests.to_i.zero?
        return "#{count(figures.requests)} requests, all failed" if figures.answered.to_i.zero?

        format("median %.1f ms, slowest %.1f ms (%s requests, %s failed)", figures.p50_ms.to_f, figures.max_ms.to_f,
               count(figures.requests), count(figures.errors.to_i))
      end
    end
  end
end
