# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A plan's table (its runs, its predictions): the presenter's header and rows, each cell escaped.
      class PlanTable < View
        def initialize(header, rows)
          super()
          @header = header
          @rows = rows
        end

        template <<~'ERB'
          <table class="plan">
          <tr><%- @header.each do |cell| -%><th><%= cell %></th><%- end -%></tr>
          <%- @rows.each do |row| -%>
          <tr><%- row.each do |cell| -%><td><%= cell %></td><%- end -%></tr>
          <%- end -%>
          </table>
        ERB
      end
    end
  end
end
