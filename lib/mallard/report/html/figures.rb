# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Label and value pairs as a two-column table; a pair whose value is nil was not recorded and
      # is left out rather than shown empty.
      class Figures < View
        def initialize(rows)
          super()
          @rows = rows.reject { |row| row[1].nil? }
        end

        template <<~'ERB'
          <%- unless @rows.empty? -%>
          <table class="figures">
          <%- @rows.each do |label, value| -%>
          <tr><th scope="row"><%= label %></th><td><%= value %></td></tr>
          <%- end -%>
          </table>
          <%- end -%>
        ERB
      end
    end
  end
end
