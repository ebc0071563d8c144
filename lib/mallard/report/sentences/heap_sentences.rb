# frozen_string_literal: true

module Mallard
  module Report
    # The sentences a heap run's terminal and HTML views share, written once: how the run ended, what the retention
    # comes to, and the figures around it. Plain text, no colour or markup. A summary stored with its conclusion
    # worded (an older summary.json) is shown as it was worded then.
    class HeapSentences
      include Formatting

      # What to change when the load failed with allocation tracing on.
      LOAD_HINT = "allocation tracing slows the app several times over: give `mallard heap` fewer connections " \
                  "(--concurrency, default #{Analysis::HeapSummary::CONCURRENCY}) or an open-loop --rate the traced " \
                  "app can answer".freeze
      # The dumps as the method names them.
      DUMP_NAMES = "ABC"
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
        [reason, retained, window, significant, conclusion, DATA_WARNING,
         *[@summary.latency&.during, @summary.latency&.outside].compact.map { |figures| probe(figures) }].compact
      end

      # How the run ended, when it says: the soak's words or the dumps' error, the dumps that are missing, and what
      # to change when the traced app could not keep up with its load. nil for a run that says nothing.
      def reason
        said = [@summary.reason && Text.printable(@summary.reason), shortfall,
                (LOAD_HINT if @summary.traced_load_failed)].compact
        said.join("; ") unless said.empty?
      end

      # "1 of the 3 dumps was written (why the others were not)"; nil when none is missing.
      def shortfall
        missing = @summary.shortfall
        return unless missing

        written = missing.written
        why = missing.why ? Text.printable(missing.why) : "the run ended before dump #{DUMP_NAMES[written]} was written"
        "#{written} of the 3 dumps #{written == 1 ? 'was' : 'were'} written (#{why})"
      end

      # What the retention comes to: how many sites keep a significant amount, and the largest of them; "nothing
      # retained beyond the threshold" is an answer too. nil without retention.
      def conclusion
        return Text.printable(@summary.conclusion) if @summary.worded?

        threshold = @summary.significant_bytes && byte_size(@summary.significant_bytes)
        return unless threshold

        kept = @summary.sites.select(&:significant)
        return nothing_kept(threshold) if kept.empty?

        top = kept.first
        "#{plural(kept.size, 'allocation site')} #{kept.size == 1 ? 'keeps' : 'keep'} #{threshold} or more; the " \
          "most, #{byte_size(top.bytes)} of #{Text.printable(top.class.to_s)}, at #{Text.printable(top.site)}"
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

      private

      def nothing_kept(threshold)
        "nothing retained beyond the threshold: no allocation site keeps #{threshold} or more of what was allocated " \
          "between dump A and dump B (#{byte_size(@summary.retained_bytes)} kept in all)"
      end
    end
  end
end
