# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Which configuration to deploy and why (or that none won), what was passed over, and how to
      # deploy it, snippet by snippet.
      class RecommendationView < View
        def initialize(recommendation)
          super()
          @recommendation = recommendation || {}
        end

        template <<~'ERB'
          <section id="recommendation">
          <h2>Recommendation: <%= @recommendation["name"] || "none" %></h2>
          <p><%= @recommendation["reason"] %></p>
          <%- unless rejected.empty? -%>
          <ul class="rejected">
          <%- rejected.each do |rejection| -%>
          <li>Passed over <strong><%= rejection["name"] %></strong>: <%= rejection["why"] %></li>
          <%- end -%>
          </ul>
          <%- end -%>
          <%- snippets.each do |key, text| -%>
          <h3><%= CompareTerminal::SNIPPETS.fetch(key, key) %></h3>
          <pre><code><%= text %></code></pre>
          <%- end -%>
          </section>
        ERB

        private

        def rejected = Array(@recommendation["rejected"])

        def snippets = @recommendation["snippets"] || {}
      end
    end
  end
end
