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
          @sentences = HeapSentences.new(summary)
        end

        template <<~'ERB'
          <%= Figures.new(rows) %>
        ERB

        private

        def rows
          [["Retained", @sentences.retained], ["Window", @sentences.window], ["Significant", @sentences.significant],
           ["Sites", sites], ["Conclusion", @sentences.conclusion]]
        end

        def sites
          "#{plural(@summary.sites.size, 'site')} in this summary, largest first" unless @summary.sites.empty?
        end
      end
    end
  end
end
