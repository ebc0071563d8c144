# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # Finds where a memory series sampled at regular intervals under load stops warming up.
    #
    # The rule: fit two straight lines, one to values[0...d] and one to values[d..], for every breakpoint d
    # in 2..3n/4 (the later line keeps a quarter of the data, so it cannot fit a few noisy tail points), and
    # keep the d with the least total squared error. Accept it as the end of warm-up only when
    # - the first slope is positive and more than SLOPE_RATIO times the magnitude of the second, and the
    #   difference between them exceeds its 99% interval (pooled residual variance, t with n - 4 df); and
    # - the two lines cut the squared error of a single line by more than MIN_IMPROVEMENT.
    # A steady leak is one straight line, so the second test rejects any split of it: a leak is not warm-up.
    # A warm-up that eases in (an exponential approach) bends gradually, so the search repeats on the
    # remainder while it keeps finding a knee. After the knee a heap often keeps settling — growth slowing as
    # glibc's arenas and Ruby's heap find their size — and that is still warm-up: while the first half of
    # what remains grows clearly faster (SETTLE_RATIO, a real bend, the same 99% test) than the second half,
    # the first half is dropped. A leak grows at one rate throughout and is never dropped this way. The
    # result is capped at n/2, leaving at least half the data for the steady window even when the warm-up
    # runs longer.
    module Warmup
      MIN_SAMPLES = 8
      SLOPE_RATIO = 3.0
      MIN_IMPROVEMENT = 0.3
      CONFIDENCE = 0.995
      SETTLE_RATIO = 2.0

      module_function

      # @param values [Array<Numeric>] memory samples at regular intervals
      # @return [Integer] index of the first steady-state sample; 0 when there is no warm-up
      def detect(values)
        limit = values.size / 2
        start = 0
        while (knee = knee(values[start..])).positive?
          start = [start + knee, limit].min
          break if start == limit
        end
        settle(values, start, limit)
      end

      # Drops the first half of the remaining window while its growth is clearly faster than the second's.
      def settle(values, start, limit)
        while start < limit && values.size - start >= 2 * MIN_SAMPLES
          rest = Segments.new(values[start..])
          half = rest.size / 2
          early = rest.slope(0, half)
          break unless early.positive? && early > SETTLE_RATIO * [rest.slope(half, rest.size), 0].max
          break unless bends?(rest, half) && slopes_differ?(rest, half)

          start = [start + half, limit].min
        end
        start
      end

      # The end of warm-up within values by one two-segment fit, or 0.
      def knee(values)
        return 0 if values.size < MIN_SAMPLES

        sums = Segments.new(values)
        single = sums.sse(0, values.size)
        return 0 if single.zero?

        best = (2..(values.size - (values.size / 4))).min_by { |d| sums.sse(0, d) + sums.sse(d, values.size) }
        warm_up?(sums, best, single) ? best : 0
      end

      def warm_up?(sums, knee, single)
        n = sums.size
        return false unless bends?(sums, knee, single)

        early = sums.slope(0, knee)
        late = sums.slope(knee, n)
        return false unless early.positive? && early > SLOPE_RATIO * late.abs

        slopes_differ?(sums, knee)
      end

      # Two lines split at knee fit clearly better than one (a real bend, not noise).
      def bends?(sums, knee, single = sums.sse(0, sums.size))
        sums.sse(0, knee) + sums.sse(knee, sums.size) < (1 - MIN_IMPROVEMENT) * single
      end

      # The early slope exceeds the late one by more than its 99% interval (pooled residual variance).
      def slopes_differ?(sums, knee)
        n = sums.size
        variance = (sums.sse(0, knee) + sums.sse(knee, n)) / (n - 4)
        spread = Math.sqrt((variance / sums.sxx(0, knee)) + (variance / sums.sxx(knee, n)))
        sums.slope(0, knee) - sums.slope(knee, n) > Statistics.t_quantile(n - 4, CONFIDENCE) * spread
      end

      # Prefix sums over (index, value) so any segment's least-squares line costs O(1).
      class Segments
        attr_reader :size

        def initialize(values)
          @size = values.size
          # Centring first keeps the sums of squares small: memory in KB or bytes squares to large numbers.
          centre = values.sum(0.0) / values.size
          @sums = [[0.0, 0.0, 0.0, 0.0, 0.0]]
          values.each_with_index do |value, x|
            y = value - centre
            s = @sums.last
            @sums << [s[0] + x, s[1] + y, s[2] + (x * x), s[3] + (x * y), s[4] + (y * y)]
          end
        end

        def slope(from, to)
          sxy(from, to) / sxx(from, to)
        end

        # Squared error of the segment's own least-squares line; never negative despite rounding.
        def sse(from, to)
          n, _sx, sy, _sxx, _sxy, syy = moments(from, to)
          [syy - (sy * sy / n) - ((sxy(from, to)**2) / sxx(from, to)), 0.0].max
        end

        def sxx(from, to)
          n, sx, _sy, sxx = moments(from, to)
          sxx - (sx * sx / n)
        end

        def sxy(from, to)
          n, sx, sy, _sxx, sxy = moments(from, to)
          sxy - (sx * sy / n)
        end

        private

        def moments(from, to)
          [to - from] + @sums[to].zip(@sums[from]).map { |high, low| high - low }
        end
      end
    end
  end
end
