# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Copy-on-write decay (Summary::SharingDecay) as a line chart against the requests each worker served: its
      # shared memory (falling as it writes to pages it shared) and its private memory (rising as it does), one pair of
      # lines a worker. nil for a tree without workers: one process shares with nothing.
      class SharingChart
        REQUESTS = SvgChart::Axis.new("Requests served by the worker", "requests")
        MEMORY = SvgChart::Axis.new("Memory", "MiB")

        # @param decay [Summary::SharingDecay, nil]
        def initialize(decay)
          @workers = decay ? decay.workers : []
        end

        # @return [Safe, nil]
        def to_html
          return if @workers.empty?

          series = @workers.each_with_index.flat_map { |worker, i| lines(worker, i) }
          SvgChart.new(id: "sharing", title: "Shared and private memory per worker, against its requests",
                       x: REQUESTS, y: MEMORY, series: series,
                       absent: "No worker served a request while it was sampled.").to_html
        end

        private

        def lines(worker, index)
          %i[shared_kb private_kb].each_with_index.map do |key, k|
            SvgChart::Series.new(name: "#{key == :shared_kb ? 'shared' : 'private'}, pid #{worker.pid}",
                                 points: worker.points.map { |point| [point.requests, point[key] / 1024.0] },
                                 style: (2 * index) + k, thin: false, dots: false)
          end
        end
      end
    end
  end
end
