# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # How far one sample lies above another, without assuming a distribution: the Hodges–Lehmann estimate (the
    # median of all n·m pairwise differences) with the confidence interval that inverts the Mann–Whitney test
    # (Bauer 1972): the k-th smallest and k-th largest differences, k taken from the null distribution of the
    # Mann–Whitney U — exact up to EXACT_LIMIT pairs, the normal approximation beyond. The interval's real
    # confidence is reported, as an exact U is discrete (4 against 4: 97.1% for a 95% request).
    #
    # Small samples cannot reach 95% at all: with 3 against 3, even complete separation has p = 0.1. Then there
    # is no interval, and the caller says why. Exact for continuous data; ties (rare in memory figures) make it
    # slightly conservative.
    module RankShift
      Result = Struct.new(:estimate, :ci, :confidence, :approach, keyword_init: true)
      EXACT_LIMIT = 10_000

      module_function

      # @param first [Array<Float>] e.g. B's figures
      # @param second [Array<Float>] A's figures
      # @return [Result] ci nil when the samples are too small for the level
      def call(first, second, level: 0.95)
        differences = first.product(second).map { |x, y| x - y }.sort
        estimate = Statistics.median(differences)
        return Result.new(estimate: estimate) if differences.empty?

        rank, confidence, approach = rank_for(first.size, second.size, level)
        return Result.new(estimate: estimate, approach: approach) unless rank

        Result.new(estimate: estimate, ci: [differences[rank - 1], differences[-rank]], confidence: confidence,
                   approach: approach)
      end

      # The smallest samples a 95% interval exists for, as [n, m] with n <= m: 2 against 8, 3 against 5, 4 and 4.
      def smallest_sizes(level: 0.95)
        (1..8).each_with_object([]) do |n, sizes|
          m = (n..64).find { |size| rank_for(n, size, level).first }
          sizes << [n, m]
          break sizes if m == n
        end
      end

      # k (1-based) and the interval's confidence, or nil where no k reaches the level.
      def rank_for(n, m, level) # rubocop:disable Naming/MethodParameterName -- the sizes, as the tables name them
        return normal_rank(n, m, level) if n * m > EXACT_LIMIT

        tail = (1 - level) / 2
        cumulative = 0
        total = u_counts(n, m)
        arrangements = total.sum
        rank = total.each_with_index.take_while do |count, _|
          cumulative += count
          cumulative <= tail * arrangements
        end.size
        return [nil, nil, "exact"] if rank.zero?

        [rank, 1 - (2.0 * total.first(rank).sum / arrangements), "exact"]
      end

      # How many of the C(n+m, n) orderings give each U = 0..n·m: the coefficients of the Gaussian binomial
      # prod (1 - q^(m+i)) / (1 - q^i), i = 1..n, as a power series cut at degree n·m (exact there).
      def u_counts(n, m) # rubocop:disable Naming/MethodParameterName
        degree = n * m
        counts = Array.new(degree + 1, 0)
        counts[0] = 1
        (1..n).each do |i|
          degree.downto(m + i) { |u| counts[u] -= counts[u - m - i] }
          (i..degree).each { |u| counts[u] += counts[u - i] }
        end
        counts
      end

      def normal_rank(n, m, level) # rubocop:disable Naming/MethodParameterName
        z = Statistics.normal_quantile(1 - ((1 - level) / 2))
        rank = ((n * m / 2.0) - (z * Math.sqrt(n * m * (n + m + 1) / 12.0))).floor
        rank.positive? ? [rank, level, "normal"] : [nil, nil, "normal"]
      end

      private_class_method :rank_for, :u_counts, :normal_rank
    end
  end
end
