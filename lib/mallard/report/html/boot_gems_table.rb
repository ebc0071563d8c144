# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Every gem's share of the boot (the terminal shows the largest; here all of them): the self figures of the
      # files it loaded, summed, with Ruby itself, the app's own files and what happened between requires as rows
      # of their own.
      class BootGemsTable < View
        include BootCells

        HEADERS = ["Gem", "Version", "RSS MiB", "95% interval", "files", *BootCells::PART_HEADERS, "objects",
                   "retained objects", "retained MiB"].freeze

        # @param gems [Array<Summary::BootGem>]
        def initialize(gems)
          super()
          @gems = Array(gems)
        end

        template <<~'ERB'
          <div class="wide">
          <table class="boot-gems">
          <thead><tr><%- HEADERS.each do |header| -%><th scope="col"><%= header %></th><%- end -%></tr></thead>
          <tbody>
          <%- @gems.each do |gem| -%>
          <tr><th scope="row"><%= gem.name %></th><td><%= gem.version %></td>
          <td class="num"><%= mebi_marked(gem.rss_kb, gem.uncertain, 2) %></td><td class="num"><%= span(gem.ci, 2) %></td>
          <td class="num"><%= count(gem.files) %></td>
          <%- part_cells(gem.parts, 2).each do |cell| -%><td class="num"><%= cell %></td><%- end -%>
          <td class="num"><%= count(gem.objects) %></td><td class="num"><%= count(gem.retained_objects) %></td>
          <td class="num"><%= mebi(gem.memsize_kb, 2) %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          </div>
        ERB
      end
    end
  end
end
