# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The retained objects summed per gem or per class, as the analysis grouped and sorted them: all of them.
      class HeapGroupsTable < View
        include HeapCells

        # @param groups [Array<Summary::HeapGroup>]
        # @param name [String] what a group is: "Gem", "Class"
        def initialize(groups, name:)
          super()
          @groups = groups
          @name = name
        end

        template <<~'ERB'
          <%- if @groups.empty? -%>
          <p class="note">None.</p>
          <%- else -%>
          <table class="heap-groups heap-<%= @name.downcase %>">
          <thead><tr><th scope="col"><%= @name %></th><th scope="col">Bytes</th><th scope="col">Objects</th></tr></thead>
          <tbody>
          <%- @groups.each do |group| -%>
          <tr><th scope="row"><%= outside(group.name) %></th><td class="num"><%= byte_size(group.bytes) %></td>
          <td class="num"><%= count(group.count) %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          <%- end -%>
        ERB
      end
    end
  end
end
