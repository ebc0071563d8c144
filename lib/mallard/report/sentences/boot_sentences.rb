# frozen_string_literal: true

module Mallard
  module Report
    # The sentences a boot's terminal and HTML views share, written once. Plain text, no colour or markup.
    class BootSentences
      include Formatting

      # @param summary [Summary::Boot]
      def initialize(summary)
        @summary = summary
        @total = summary.total
      end

      # Every sentence this summary gives, for a check that each view shows them all.
      def all = [total, growth, retained, malloc_not_read, malloc_stopped].compact

      # The RSS after the boot, with its interval over the repeats: "123.4 MiB (95% interval 120.1 … 125.0 MiB,
      # ±1.3%)".
      def total
        return unless @total
        return "#{mib(@total.rss_kb)} (one repeat: no interval)" unless @total.ci

        width = @total.half_width_pct && format(", ±%.1f%%", @total.half_width_pct)
        "#{mib(@total.rss_kb)} (95% interval #{mib_range(*@total.ci)} MiB#{width})"
      end

      # Where the RSS came from: Ruby before the first require, and what requiring the app added.
      def growth
        @total && "Ruby itself #{mib(@total.baseline_kb)}, the boot added #{mib(@total.growth_kb)}"
      end

      # The objects still alive after the boot, when the allocation-tracing pass ran.
      def retained
        return unless @total
        return "not measured (the allocation-tracing pass did not run)" unless @summary.objects_pass

        "#{count(@total.retained_objects)} objects alive after the boot, #{mib(@total.retained_kb)}"
      end

      # Why malloc's part is missing, when it is.
      def malloc_not_read
        return unless @total&.parts && @total.parts.malloc_kb.nil?

        "not read: #{Text.printable(@summary.malloc_note || 'the allocator gives no count')}; it is in unexplained"
      end

      # That malloc was read only for the total, when the probe stopped reading it per require after a slow reading.
      def malloc_stopped
        stopped = @summary.malloc_stopped
        return unless stopped

        "malloc was not read per require after the first slow reading in #{stopped.repeats} of " \
          "#{plural(stopped.of, 'repeat')} (#{Text.printable(stopped.first)}; glibc's mallinfo2 walks every free " \
          "chunk), only for the total"
      end
    end
  end
end
