# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Every site the summary holds (the chart draws the largest), as the analysis sorted them: what each keeps,
      # in bytes and objects, of which class, in which gem, allocated where. Significant sites are marked.
      class HeapSitesTable < View
        include HeapCells

        # @param summary [Summary::Heap]
        def initialize(summary)
          super()
          @sites = summary.sites
          @threshold = summary.significant_bytes
        end

        template <<~'ERB'
          <%- if @sites.empty? -%>
          <p class="note">No object allocated in the window is still alive in dump C.</p>
          <%- else -%>
          <p class="note">* marks a significant site: one that retains <%= byte_size(@threshold) %> or more.</p>
          <div class="wide">
          <table class="heap-sites">
          <thead><tr><th scope="col"><abbr title="significant">*</abbr></th><th scope="col">Bytes</th>
          <th scope="col">Objects</th><th scope="col">Class</th><th scope="col">Gem</th><th scope="col">Site</th></tr></thead>
          <tbody>
          <%- @sites.each do |site| -%>
          <tr class="<%= site.significant ? "significant" : "other" %>"><td><%= "*" if site.significant %></td>
          <td class="num"><%= byte_size(site.bytes) %></td><td class="num"><%= count(site.count) %></td>
          <td><%= outside(site.class) %></td><td><%= outside(site.gem) %></td><td><code><%= outside(site.site) %></code><% if site.path %>
          <br><small>held: <%= site.path.map { |step| outside(step) }.join(" > ") %></small><% end %></td></tr>
          <%- end -%>
          </tbody>
          </table>
          </div>
          <%- end -%>
        ERB
      end
    end
  end
end
