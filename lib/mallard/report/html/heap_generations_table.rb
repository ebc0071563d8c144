# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The generation chart's buckets as a table, folded away under <details> as every chart's numbers are.
      class HeapGenerationsTable < View
        include HeapCells

        # @param buckets [Array<HeapGenerationsChart::Bucket>]
        def initialize(buckets)
          super()
          @buckets = buckets
        end

        template <<~'ERB'
          <details class="table-view">
          <summary>Table of these numbers</summary>
          <table class="heap-generations">
          <thead><tr><th scope="col">Generations</th><th scope="col">Objects</th><th scope="col">Bytes</th>
          <th scope="col">In the window</th></tr></thead>
          <tbody>
          <%- @buckets.each do |bucket| -%>
          <tr><th scope="row"><%= bucket.label %></th><td class="num"><%= count(bucket.generation.count) %></td>
          <td class="num"><%= byte_size(bucket.generation.bytes) %></td><td><%= bucket.in_window ? "yes" : "" %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          </details>
        ERB
      end
    end
  end
end
