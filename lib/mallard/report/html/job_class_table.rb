# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A job worker's figures per job class: the classes memory grows with, a row per class and what the figures
      # are, as JobClassSentences words them. Empty for a run without classes.
      class JobClassTable < View
        # @param sentences [JobClassSentences]
        def initialize(sentences)
          super()
          @sentences = sentences
        end

        template <<~'ERB'
          <%- if @sentences.any? -%>
          <h3>Per job class</h3>
          <%- if @sentences.named -%>
          <p><%= @sentences.named %></p>
          <%- end -%>
          <table class="job-classes">
          <thead><tr><%- JobClassSentences::HEADINGS.each do |heading| -%><th scope="col"><%= heading %></th><%- end -%></tr></thead>
          <tbody>
          <%- @sentences.rows.each do |cells| -%>
          <tr><th scope="row"><%= cells.first %></th><%- cells.drop(1).each do |cell| -%><td><%= cell %></td><%- end -%></tr>
          <%- end -%>
          </tbody>
          </table>
          <p class="note"><%= @sentences.basis %></p>
          <%- end -%>
        ERB
      end
    end
  end
end
