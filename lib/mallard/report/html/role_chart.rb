# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A job backend's memory per role (Summary::RolePart) as a line chart over the run's time: each role's PSS, its
      # processes' summed at each tick, one line a role (the lines add up to the tree's). nil for a run without roles.
      class RoleChart
        MEMORY = SvgChart::Axis.new("PSS", "MiB")

        # @param roles [Array<Summary::RolePart>, nil]
        def initialize(roles)
          @roles = Array(roles)
        end

        # @return [Safe, nil]
        def to_html
          return if @roles.empty?

          series = @roles.each_with_index.map do |role, index|
            SvgChart::Series.new(name: role.role, points: Array(role.points).map { |t, kb| [t, kb / 1024.0] },
                                 style: index, thin: false, dots: false)
          end
          SvgChart.new(id: "roles", title: "PSS per role over time", x: SoakCharts::TIME, y: MEMORY, series: series,
                       absent: "No process of the tree was sampled.").to_html
        end
      end
    end
  end
end
