# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # compare --yjit, as the terminal shows it: each YJIT row's code and metadata memory beside its steady memory,
      # req/s and p99, and the code region size chosen in each group of rows with how to deploy it
      # (Report::YjitSentences words them).
      class CompareYjitView < View
        # @param sentences [YjitSentences]
        def initialize(sentences)
          super()
          @sentences = sentences
          @header, @rows = sentences.table
        end

        template <<~'ERB'
          <h3>YJIT</h3>
          <p><%= @sentences.heading %>.</p>
          <table class="yjit">
          <thead><tr><%- @header.each do |header| -%><th scope="col"><%= header %></th><%- end -%></tr></thead>
          <tbody>
          <%- @rows.each do |name, *cells| -%>
          <tr><th scope="row"><%= name %></th><%- cells.each do |cell| -%><td><%= cell %></td><%- end -%></tr>
          <%- end -%>
          </tbody>
          </table>
          <%- @sentences.decided.each do |line, snippet| -%>
          <p><%= line %></p>
          <%- if snippet -%><pre><%= snippet %></pre><%- end -%>
          <%- end -%>
        ERB
      end
    end
  end
end
