# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A titled section: rendered parts (charts, tables) in order, and plain text as notes.
      class Section < View
        def initialize(id:, title:, parts:)
          super()
          @id = id
          @title = title
          @parts = parts.compact
        end

        template <<~'ERB'
          <section id="<%= @id %>">
          <h2><%= @title %></h2>
          <%- @parts.each do |part| -%>
          <%- if part.is_a?(Safe) -%>
          <%= part %>
          <%- else -%>
          <p class="note"><%= part %></p>
          <%- end -%>
          <%- end -%>
          </section>
        ERB
      end
    end
  end
end
