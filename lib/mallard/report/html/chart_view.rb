# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A chart as a figure: caption, the SVG, notes, then the same numbers as a table for readers
      # who cannot see the lines (screen readers, copy and paste); with nothing to draw, why not.
      class ChartView < View
        def initialize(chart)
          super()
          @chart = chart
        end

        template <<~'ERB'
          <figure class="chart" id="chart-<%= @chart.id %>">
          <figcaption><%= @chart.title %></figcaption>
          <%- if @chart.empty? -%>
          <p class="note"><%= @chart.absent || "No data recorded for this chart." %></p>
          <%- else -%>
          <%= @chart.to_svg %>
          <%- @chart.notes.each do |note| -%>
          <p class="note"><%= note %></p>
          <%- end -%>
          <%= ChartTable.new(@chart) %>
          <%- end -%>
          </figure>
        ERB
      end
    end
  end
end
