# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A chart's numbers as a table, folded away under <details>. Series sampled at the same times
      # (one soak's total and processes) share a row per time; otherwise (runs of a comparison, each
      # on its own clock) there is a row per point.
      class ChartTable < View
        X_DECIMALS = 2

        def initialize(chart)
          super()
          @chart = chart
          @series = chart.series
        end

        template <<~'ERB'
          <details class="table-view">
          <summary>Table of these numbers</summary>
          <table>
          <%- if shared_times? -%>
          <thead><tr><th scope="col"><%= @chart.x.title %></th>
          <%- @series.each do |series| -%><th scope="col"><%= series.name %> (<%= @chart.y.unit %>)</th><%- end -%>
          </tr></thead>
          <tbody>
          <%- @series.first.points.each_with_index do |(time, _), i| -%>
          <tr><th scope="row"><%= number(time, X_DECIMALS) %></th>
          <%- @series.each do |series| -%><td><%= number(series.points[i][1], y_decimals) %></td><%- end -%></tr>
          <%- end -%>
          <%- else -%>
          <thead><tr><th scope="col">Series</th><th scope="col"><%= @chart.x.title %></th>
          <th scope="col"><%= @chart.y.title %></th></tr></thead>
          <tbody>
          <%- @series.each do |series| -%><%- series.points.each do |time, value| -%>
          <tr><th scope="row"><%= series.name %></th><td><%= number(time, X_DECIMALS) %></td>
          <td><%= number(value, y_decimals) %></td></tr>
          <%- end -%><%- end -%>
          <%- end -%>
          </tbody>
          </table>
          </details>
        ERB

        private

        def shared_times?
          times = @series.first.points.map(&:first)
          @series.all? { |series| series.points.map(&:first) == times }
        end

        # Enough digits for the smallest values shown: req/s and MiB need one, GC runs per second two.
        def y_decimals
          @y_decimals ||= @series.flat_map { |s| s.points.map(&:last) }.max.to_f >= 100 ? 1 : 2
        end
      end
    end
  end
end
