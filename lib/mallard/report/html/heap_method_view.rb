# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # How the retention was found: the method and the tracing it relies on, in the analysis's own words, and how
      # fast mallard read the dumps, with what memory.
      class HeapMethodView < View
        include HeapCells

        # @param summary [Summary::Heap]
        def initialize(summary)
          super()
          @summary = summary
          @analysis = summary.analysis
        end

        template <<~'ERB'
          <%- [@summary.methodology, @summary.tracing].compact.each do |text| -%>
          <p class="method"><%= text %></p>
          <%- end -%>
          <%- if @analysis -%>
          <h3>Reading the dumps</h3>
          <%= Figures.new(rows) %>
          <%- end -%>
        ERB

        private

        def rows
          [["Read", byte_size(@analysis.bytes)], ["In", @analysis.seconds && "#{number(@analysis.seconds, 2)} s"],
           ["Throughput", @analysis.mb_per_s && "#{number(@analysis.mb_per_s, 0)} MB/s"],
           ["mallard's peak RSS", @analysis.peak_rss_kb && mib(@analysis.peak_rss_kb)]]
        end
      end
    end
  end
end
