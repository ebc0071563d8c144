# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Which configuration to deploy and why (or that none won), what was passed over, and how to
      # deploy it, snippet by snippet. A failed comparison recommends nothing: its reason says why.
      class RecommendationView < View
        # @param recommendation [Summary::Recommendation, nil] nil for a failed comparison
        # @param words [RecommendationSentences, nil] its sentences
        # @param snippets [Hash{String=>String}] title => text (DeploySnippets.titled)
        # @param reason [String, nil] why there is no recommendation
        def initialize(recommendation, words:, snippets: {}, reason: nil)
          super()
          @recommendation = recommendation
          @words = words
          @snippets = snippets
          @reason = reason
        end

        template <<~'ERB'
          <section id="recommendation">
          <%- if @recommendation -%>
          <h2>Recommendation: <%= @recommendation.name || "none" %></h2>
          <p><%= @words.reason %></p>
          <%- unless @words.rejections.empty? -%>
          <ul class="rejected">
          <%- @words.rejections.each do |name, why| -%>
          <li>Passed over <strong><%= name %></strong>: <%= why %></li>
          <%- end -%>
          </ul>
          <%- end -%>
          <%- unless @words.trade_offs.empty? -%>
          <h3>Trade-offs</h3>
          <p>No configuration beats these on every resolved figure:</p>
          <ul class="trade-offs">
          <%- @words.trade_offs.each do |name, text| -%>
          <li><strong><%= name %></strong>: <%= text %></li>
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
