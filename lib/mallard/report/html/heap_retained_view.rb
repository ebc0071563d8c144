# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # What the app kept in all: the objects allocated in the window (after dump A, up to dump B) that dump C
      # still holds, their bytes, the window in generations, and from how many bytes a site counts as significant.
      class HeapRetainedView < View
        include HeapCells

        # @param summary [Summary::Heap]
        def initialize(summary)
          super()
          @summary = summary
        end

        template <<~'ERB'
          <%= Figures.new(rows) %>
        ERB

        private

        def rows
          [["Retained", "#{count(@summary.retained_count)} objects, #{byte_size(@summary.retained_bytes)}"],
           ["Window", window], ["Significant", significant], ["Sites", sites], ["Conclusion", @summary.conclusion]]
        end

        def window
          words = window_words(@summary)
          "#{words}: allocated after dump A, up to dump B, and still alive in dump C" if words
        end

        def significant
          @summary.significant_bytes && "a site that retains #{byte_size(@summary.significant_bytes)} or more"
        end

        def sites
          "#{plural(@summary.sites.size, 'site')} in this summary, largest first" unless @summary.sites.empty?
        end
      end
    end
  end
end
