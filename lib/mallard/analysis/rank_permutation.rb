# frozen_string_literal: true

module Mallard
  module Analysis
    # The distribution of Spearman's rho when the two series are unrelated: every pairing of the y ranks with the
    # x ranks equally likely. Fisher's z is an approximation for tens of points and undefined at rho = ±1; four
    # major GCs in a perfect ranking happen by chance 1 time in 24, which this says and Fisher's z does not.
    #
    # Up to EXACT_MAX points every pairing is counted (a dynamic programme over which y ranks are used, so 10
    # points cost 1,024 states instead of 3.6 million orderings); beyond, DRAWS random pairings from a fixed seed,
    # so the same data always gives the same answer. Ties keep their mid-ranks: the permutation is conditional on
    # them, which is what makes it exact with ties too.
    module RankPermutation
      # The null distribution of |rho|: values ascending, each with the chance of a value at least that large.
      Null = Struct.new(:values, :tails, :methodology, keyword_init: true) # rubocop:disable Lint/StructNewOverride

      EXACT_MAX = 10
      DRAWS = 5000
      # Rho is a ratio of integers here; values closer than this are the same value.
      SAME = 1e-9

      module_function

      # @param x_ranks [Array<Numeric>] ranks (mid-ranks for ties) of x
      # @param y_ranks [Array<Numeric>] ranks of y, same length
      # @return [Null, nil] nil when either has no spread
      def null(x_ranks, y_ranks)
        scale = scale(x_ranks, y_ranks)
        return unless scale

        counts = x_ranks.size <= EXACT_MAX ? exact_counts(x_ranks, y_ranks) : drawn(x_ranks, y_ranks)
        magnitudes = counts.each_with_object(Hash.new(0)) do |(cross, count), merged|
          merged[((cross * scale[0]) - scale[1]).abs.round(9)] += count
        end
        exact = x_ranks.size <= EXACT_MAX
        to_null(magnitudes, exact ? "exact permutation distribution" : "#{DRAWS} random permutations")
      end

      # P(|rho| >= observed) under the null: the two-sided p-value.
      def tail(null, observed)
        index = null.values.index { |value| value >= observed.abs - SAME }
        index ? null.tails[index] : 0.0
      end

      # The largest |rho| that chance alone reaches more often than `alpha`: rho beyond it rejects independence.
      def critical(null, alpha)
        index = null.tails.rindex { |chance| chance > alpha }
        index ? null.values[index] : 0.0
      end

      # rho = cross * a - b, where cross is the sum of products of the ranks: the permutation moves only cross.
      def scale(x_ranks, y_ranks)
        n = x_ranks.size
        spreads = [x_ranks, y_ranks].map do |ranks|
          centre = ranks.sum(0.0) / n
          ranks.sum(0.0) { |rank| (rank - centre)**2 }
        end
        return if spreads.any?(&:zero?)

        norm = Math.sqrt(spreads[0] * spreads[1])
        [1.0 / norm, x_ranks.sum(0.0) * y_ranks.sum(0.0) / n / norm]
      end

      # Counts of each sum of rank products over all n! pairings. Ranks are halves at worst, so doubled they are
      # integers and the sums are exact.
      def exact_counts(x_ranks, y_ranks)
        doubled_x = x_ranks.map { |rank| (rank * 2).round }
        doubled_y = y_ranks.map { |rank| (rank * 2).round }
        states = Array.new(1 << doubled_x.size)
        states[0] = { 0 => 1 }
        states.each_index do |used|
          next unless (sums = states[used])

          step(states, used, sums, doubled_x[used.digits(2).count(1)], doubled_y)
        end
        states.last.transform_keys { |sum| sum / 4.0 }
      end

      # Pairs the next x rank with each y rank not used yet.
      def step(states, used, sums, x_rank, y_doubled)
        return unless x_rank

        y_doubled.each_with_index do |y_rank, index|
          next unless used[index].zero?

          into = (states[used | (1 << index)] ||= Hash.new(0))
          sums.each { |sum, count| into[sum + (x_rank * y_rank)] += count }
        end
      end

      def drawn(x_ranks, y_ranks)
        random = Random.new(1)
        Array.new(DRAWS) do
          x_ranks.zip(y_ranks.shuffle(random: random)).sum(0.0) { |x, y| x * y }
        end.tally
      end

      def to_null(counts, methodology)
        values = counts.keys.sort
        total = counts.values.sum.to_f
        left = total
        tails = values.map { |value| (left / total).tap { left -= counts[value] } }
        Null.new(values: values, tails: tails, methodology: methodology)
      end

      private_class_method :scale, :exact_counts, :step, :drawn, :to_null
    end
  end
end
