# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # Each process of a fleet reduced to one figure: the time-weighted median of its series over the window, so a
    # process is the unit a comparison counts (its points are autocorrelated readings of one process, not
    # independent measurements), and a process seen for an hour weighs no more than one seen for a minute.
    # Each point stands for the time until the next one, at most one step (a gap — a restart, a missed scrape —
    # stands for nothing); Prometheus's query_range repeats a reading at every step until the next scrape, so at a
    # step finer than the scrape interval each reading is already weighted by how long it held.
    module ProcessMedians
      # Fewer points than this say too little about a process: it is shown, not counted.
      MIN_POINTS = 3

      module_function

      # @param series [Array<Run::FleetSeries>]
      # @param step [Float] seconds between the query's points
      # @return [Array<Summary::FleetProcess>]
      def call(series, step:, set:)
        series.map do |one|
          times = one.points.map(&:first)
          values = one.points.map(&:last)
          Summary::FleetProcess.new(set: set, labels: one.labels, points: values.size,
                                    median: Statistics.weighted_median(values, weights(times, step)),
                                    excluded: values.size < MIN_POINTS)
        end
      end

      def weights(times, step)
        times.each_cons(2).map { |now, after| [after - now, step].min } + (times.empty? ? [] : [step])
      end
    end
  end
end
