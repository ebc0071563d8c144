# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Which configuration to deploy and why (or that none won), what was passed over, and how to
      # deploy it, snippet by snippet. A failed comparison recommends nothing: its reason says why.
      class RecommendationView < View
        # @param recommendation [Summary::Recommendation, nil] nil for a failed comparison
        # @param snippets [Hash{String=>String}] title => text (DeploySnippets.titled)
        # @param reason [String, nil] why there is no recommendation
        def initialize(recommendation, snippets: {}, reason: nil)
          super()
          @recommendation = recommendation
          @snippets = snippets
          @reason = reason
        end

        template <<~'ERB'
          <section id="recommendation">
          <%- if @recommendation -%>
          <h2>Recommendation: <%= @recommendation.name || "none" %></h2>
          <p><%= @recommendation.reason %></p>
          <%- unless @recommendation.rejected.empty? -%>
          <ul class="rejected">
          <%- @recommendation.rejected.each do |rejection| -%>
          <li>Passed over <strong><%= rejection.name %></strong>: <%= rejection.why %></li>
          <%- end -%>
          </ul>
          <%- end -%>
          <%- unless @recommendation.trade_offs.to_a.empty? -%>
          <h3>Trade-offs</h3>
          <p>No configuration beats these on every resolved figure:</p>
          <ul class="trade-offs">
          <%- @recommendation.trade_offs.each do |entry| -%>
          <li><strong><%= entry.name %></strong>: gains <%= entry.gains.empty? ? "nothing resolved" : entry.gains.join(", ") %><%= "; costs #{entry.costs.join(', ')}" if entry.costs.any? %></li>
          <%- end -%>
          </ul>
          <%- end -%>
          <%- @snippets.each do |title, text| -%>
          <h3><%= title %></h3>
          <pre><code><%= text %></code></pre>
          <%- end -%>
          <%- else -%>
          <h2>No recommendation</h2>
          <%- if @reason -%><p class="warning"><%= @reason %></p><%- end -%>
          <%- end -%>
          </section>
        ERB
      end
    end
  end
end
