# frozen_string_literal: true

module Mallard
  module Report
    # A series as one line of block characters, scaled between its own min and max.
    module Sparkline
      BARS = "▁▂▃▄▅▆▇█"

      module_function

      def render(values, width: 60)
        return "" if values.empty?

        buckets = bucket(values, width)
        low, high = buckets.minmax
        span = (high - low).to_f
        buckets.map { |v| BARS[span.zero? ? 0 : ((v - low) / span * (BARS.size - 1)).round] }.join
      end

      # Averages neighbouring values down to at most `width` points.
      def bucket(values, width)
        return values if values.size <= width

        size = values.size.fdiv(width)
        Array.new(width) do |i|
          slice = values[(i * size).floor...((i + 1) * size).floor]
          slice.sum.fdiv(slice.size)
        end
      end
    end
  end
end
