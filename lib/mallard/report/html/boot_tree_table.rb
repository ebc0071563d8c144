# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The require tree as a table, each require indented beneath what required it, with every figure the summary
      # holds for it: the same tree the icicle draws, readable without sight, and whole (no depth or width limit).
      class BootTreeTable < View
        include BootCells

        # A node's hidden children, as one row after its shown ones.
        Hidden = Struct.new(:requires, :rss_kb)

        HEADERS = ["Require", "Gem", "RSS MiB", "95% interval", "self MiB", *BootCells::PART_HEADERS, "objects",
                   "retained objects", "retained MiB", "also required by"].freeze

        # @param tree [Array<Summary::BootNode>]
        def initialize(tree)
          super()
          @rows = []
          tree.each { |node| collect(node, 0) }
        end

        template <<~'ERB'
          <div class="wide">
          <table class="boot-tree">
          <thead><tr><%- HEADERS.each do |header| -%><th scope="col"><%= header %></th><%- end -%></tr></thead>
          <tbody>
          <%- @rows.each do |item, depth| -%>
          <%- if item.is_a?(Hidden) -%>
          <tr class="note"><td colspan="2" style="padding-left: <%= depth * 0.75 %>em"><%= plural(item.requires, "more require") %>
          under the cutoff</td><td class="num"><%= mebi(item.rss_kb) %></td><td colspan="<%= HEADERS.size - 3 %>"></td></tr>
          <%- else -%>
          <tr><th scope="row" style="padding-left: <%= depth * 0.75 %>em"><%= breakable(item.name) %></th><td><%= item.gem %></td>
          <td class="num"><%= mebi_marked(item.rss_kb, item.uncertain) %></td><td class="num"><%= span(item.ci) %></td>
          <td class="num"><%= mebi(item.self_kb) %></td>
          <%- part_cells(item.parts).each do |cell| -%><td class="num"><%= cell %></td><%- end -%>
          <td class="num"><%= count(item.objects) %></td><td class="num"><%= count(item.retained_objects) %></td>
          <td class="num"><%= mebi(item.memsize_kb) %></td><td class="also"><%= also(item.also_required_by) %></td></tr>
          <%- end -%>
          <%- end -%>
          </tbody>
          </table>
          </div>
        ERB

        private

        # A long require path may break after a "/" (never inside a name), so the table fits the page.
        def breakable(name)
          Safe.new(ERB::Util.html_escape(name.to_s).gsub("/", "/<wbr>"))
        end

        def collect(node, depth)
          @rows << [node, depth]
          node.children.each { |child| collect(child, depth + 1) }
          hidden = node.hidden
          return unless hidden && hidden["count"].to_i.positive?

          @rows << [Hidden.new(hidden["count"].to_i, hidden["rss_kb"]), depth + 1]
        end
      end
    end
  end
end
