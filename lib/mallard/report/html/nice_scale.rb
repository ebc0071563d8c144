# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Axis bounds and ticks on 1-2-5 steps, so that a reader can interpolate between gridlines:
      # 0, 50, 100, 150, 200 MiB rather than 0, 38.6, 77.3 …
      class NiceScale
        STEPS = [1, 2, 5, 10].freeze
        EPSILON = 1e-9 # 0.3 / 0.1 is 2.9999999999999996 in floating point

        attr_reader :min, :max, :step

        def initialize(low, high, ticks: 5)
          low, high = widen(low.to_f, high.to_f)
          @step = nice_step((high - low) / ticks)
          @min = ((low / @step) + EPSILON).floor * @step
          @max = ((high / @step) - EPSILON).ceil * @step
        end

        def ticks
          (0..((@max - @min) / @step).round).map { |i| (@min + (i * @step)).round(decimals) }
        end

        # Digits after the point that tell the ticks apart: 0 for steps of 1 or more, 1 for 0.5 …
        def decimals
          @step >= 1 ? 0 : -Math.log10(@step).floor
        end

        def label(value)
          format("%.#{decimals}f", value)
        end

        private

        # A flat series (all zeros, or one sample) still needs an axis with some height.
        def widen(low, high)
          return [low, high] if high > low
          return [low, low + 1.0] if low.zero?

          [low - (low.abs * 0.1), high + (high.abs * 0.1)]
        end

        def nice_step(rough)
          magnitude = 10.0**Math.log10(rough).floor
          magnitude * STEPS.find { |step| step * magnitude >= rough * (1 - EPSILON) }
        end
      end
    end
  end
end
