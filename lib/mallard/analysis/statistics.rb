# frozen_string_literal: true

require_relative "rank_permutation"

module Mallard
  module Analysis
    # Small, dependency-free statistics for memory series. Pure functions over arrays of numbers;
    # summaries return nil for empty input so callers decide what "no data" means.
    module Statistics
      # A straight-line least-squares fit. slope_ci is the 95% interval, Student t with n - 2 df.
      Fit = Struct.new(:slope, :intercept, :slope_ci, :n, :residual_sd, :r_squared, keyword_init: true)
      # Spearman's rho, its 95% interval, the two-sided permutation p-value, how the null was had, and n.
      RankCorrelation = Struct.new(:rho, :ci, :p_value, :methodology, :n, keyword_init: true)

      # Continued fraction and bisection limits: generous, yet cheap enough to call in a loop.
      FRACTION_ITERATIONS = 300
      FRACTION_EPSILON = 1e-15
      TINY = 1e-300
      NEWTON_STEPS = 100
      QUANTILE_TOLERANCE = 1e-12

      module_function

      def mean(values)
        return if values.empty?

        values.sum(0.0) / values.size
      end

      # Means of `count` contiguous, near-equal slices: batches long enough to forget each other turn an
      # autocorrelated series into nearly independent values.
      def batch_means(values, count)
        (0...count).map { |batch| mean(values[(batch * values.size / count)...((batch + 1) * values.size / count)]) }
      end

      def median(values)
        percentile(values, 50)
      end

      # The median of values each standing for a share of time (its weight): the value below which half the total
      # weight lies, the midpoint of the two values that meet there when it falls exactly between them. Equal
      # weights give #median.
      # @param weights [Array<Numeric>] non-negative, one per value
      def weighted_median(values, weights)
        return if values.empty?
        raise ArgumentError, "values and weights differ in length" unless values.size == weights.size

        pairs = values.zip(weights).sort_by(&:first)
        half = weights.sum(0.0) / 2
        below = 0.0
        pairs.each_with_index do |(value, weight), index|
          below += weight
          return value if below > half
          return (value + pairs[index + 1].first) / 2.0 if below == half && pairs[index + 1]
        end
        pairs.last.first
      end

      # Sample standard deviation (n - 1); nil below two values, where it is undefined.
      def stddev(values)
        return if values.size < 2

        centre = mean(values)
        Math.sqrt(values.sum(0.0) { |value| (value - centre)**2 } / (values.size - 1))
      end

      # Linear interpolation between closest ranks, as numpy's default, so results match other tools.
      # @param percent [Numeric] 0..100
      def percentile(values, percent)
        return if values.empty?
        raise ArgumentError, "percentile must be within 0..100, got #{percent}" unless (0..100).cover?(percent)

        sorted = values.sort
        rank = (sorted.size - 1) * percent / 100.0
        below = sorted[rank.floor]
        below + ((sorted[rank.ceil] - below) * (rank - rank.floor))
      end

      # Student t quantile by inverting the exact distribution function (a regularized incomplete beta),
      # so it holds for small df where normal approximations are off by several percent.
      # @param dof [Numeric] degrees of freedom, > 0 (need not be whole)
      def t_quantile(dof, probability = 0.975)
        raise ArgumentError, "degrees of freedom must be positive, got #{dof}" unless dof.positive?
        unless probability.positive? && probability < 1
          raise ArgumentError, "probability must be within (0, 1), got #{probability}"
        end
        return -t_quantile(dof, 1 - probability) if probability < 0.5
        return 0.0 unless probability > 0.5 # the median

        upper_t_quantile(dof, 1 - probability)
      end

      # t_quantile for whole degrees of freedom, remembered: a boot's tree asks it for thousands of nodes with the
      # same few repeats, and each answer costs a root-finding over the incomplete beta.
      def whole_t_quantile(dof, probability)
        (@whole_t_quantiles ||= {})[[dof, probability]] ||= t_quantile(dof, probability)
      end

      # Percentile bootstrap of any statistic (the median without a block). Deterministic for a given Random.
      # @return [Array(Float, Float), nil] [low, high]
      def bootstrap_ci(values, level: 0.95, resamples: 2000, random: Random.new(1), &statistic)
        return if values.empty?
        raise ArgumentError, "level must be within (0, 1), got #{level}" unless level.positive? && level < 1

        statistic ||= method(:median)
        estimates = Array.new(resamples) do
          statistic.call(Array.new(values.size) { values[random.rand(values.size)] })
        end
        tail = (1 - level) / 2 * 100
        [percentile(estimates, tail), percentile(estimates, 100 - tail)]
      end

      # Student t interval for the mean: exact for normal data, and honest for the 2-5 values of a small
      # experiment, where resampling cannot see spread it was not shown.
      # @return [Array(Float, Float), nil] [low, high]; nil below two values
      def mean_ci(values, level: 0.95)
        return if values.size < 2

        centre = mean(values)
        half_width = whole_t_quantile(values.size - 1, two_sided(level)) * stddev(values) / Math.sqrt(values.size)
        [centre - half_width, centre + half_width]
      end

      # Welch's interval for mean(first) - mean(second) from independent samples whose variances may differ,
      # on Welch-Satterthwaite df. Samples without spread collapse the interval to the point difference.
      # @return [Array(Float, Float), nil] [low, high]; nil when either sample has fewer than two values
      def welch_ci(first, second, level: 0.95)
        return if first.size < 2 || second.size < 2

        difference = mean(first) - mean(second)
        shares = [first, second].map { |sample| (stddev(sample)**2) / sample.size }
        # The squares can underflow for spreads below ~1e-154: treat those as no spread at all.
        df_denominator = shares.zip([first, second]).sum { |share, sample| (share**2) / (sample.size - 1) }
        return [difference, difference] unless df_denominator.positive?

        half_width = t_quantile((shares.sum**2) / df_denominator, two_sided(level)) * Math.sqrt(shares.sum)
        [difference - half_width, difference + half_width]
      end

      # Ordinary least squares of ys on xs, with a 95% interval for the slope.
      # @return [Fit]
      def linear_fit(x_values, y_values)
        unless x_values.size == y_values.size
          raise ArgumentError, "xs and ys differ in length (#{x_values.size} and #{y_values.size})"
        end
        raise ArgumentError, "a fit with an interval needs at least 3 points, got #{x_values.size}" if x_values.size < 3

        x_mean = mean(x_values)
        y_mean = mean(y_values)
        sxx = x_values.sum(0.0) { |x| (x - x_mean)**2 }
        raise ArgumentError, "xs have no variance: the slope is undefined" if sxx.zero?

        sxy = x_values.zip(y_values).sum(0.0) { |x, y| (x - x_mean) * (y - y_mean) }
        slope = sxy / sxx
        fit_summary(x_values, y_values, slope, y_mean - (slope * x_mean), sxx)
      end

      # Spearman's rank correlation with a 95% interval from its permutation distribution (RankPermutation): rho
      # plus or minus the largest |rho| chance alone reaches more than 5% of the time, within -1..1. It excludes
      # zero exactly when the permutation test rejects independence, at 4 points as at 400, and is never of zero
      # width (Fisher's z, used before, is not valid at a handful of points and collapses at rho = ±1).
      # p_value: two-sided, the chance of |rho| at least this large between unrelated series.
      # @return [RankCorrelation, nil] nil below 4 pairs or without spread
      def spearman(x_values, y_values, level: 0.95)
        return if x_values.size < 4 || x_values.size != y_values.size

        x_ranks = ranks(x_values)
        y_ranks = ranks(y_values)
        rho = pearson(x_ranks, y_ranks)
        null = rho && RankPermutation.null(x_ranks, y_ranks)
        return unless null

        # The null's values are rounded so that equal ones meet; rho is too, so rho at the band is on it.
        centre = rho.round(9)
        reach = RankPermutation.critical(null, 1 - level)
        RankCorrelation.new(rho: rho, ci: [(centre - reach).clamp(-1.0, 1.0), (centre + reach).clamp(-1.0, 1.0)],
                            p_value: RankPermutation.tail(null, rho), methodology: null.methodology, n: x_values.size)
      end

      # nil when either has no spread.
      def pearson(x_values, y_values)
        spreads = [x_values, y_values].map { |values| stddev(values) }
        return if spreads.any?(&:zero?)

        x_mean = mean(x_values)
        y_mean = mean(y_values)
        covariance = x_values.zip(y_values).sum(0.0) { |x, y| (x - x_mean) * (y - y_mean) } / (x_values.size - 1)
        (covariance / spreads.reduce(:*)).clamp(-1.0, 1.0)
      end

      # Ranks from 1, ties sharing their mean rank.
      def ranks(values)
        result = Array.new(values.size)
        below = 0
        values.each_with_index.sort_by(&:first).chunk_while { |a, b| a.first == b.first }.each do |ties|
          ties.each { |(_, index)| result[index] = below + ((ties.size + 1) / 2.0) }
          below += ties.size
        end
        result
      end

      # The normal quantile as the limit of Student t: a t with a million df differs from it by under 1e-6.
      def normal_quantile(probability)
        t_quantile(1e6, probability)
      end

      def two_sided(level)
        raise ArgumentError, "level must be within (0, 1), got #{level}" unless level.positive? && level < 1

        1 - ((1 - level) / 2)
      end

      def fit_summary(x_values, y_values, slope, intercept, sxx)
        n = x_values.size
        y_mean = mean(y_values)
        sse = x_values.zip(y_values).sum(0.0) { |x, y| (y - intercept - (slope * x))**2 }
        sst = y_values.sum(0.0) { |y| (y - y_mean)**2 }
        residual_sd = Math.sqrt(sse / (n - 2))
        half_width = t_quantile(n - 2) * residual_sd / Math.sqrt(sxx)
        # Constant ys are fitted exactly by a flat line: call that a perfect fit rather than 0/0.
        r_squared = sst.zero? ? 1.0 : 1 - (sse / sst)
        Fit.new(slope: slope, intercept: intercept, slope_ci: [slope - half_width, slope + half_width],
                n: n, residual_sd: residual_sd, r_squared: r_squared)
      end

      # Newton on the exact upper tail, kept inside a bracket so heavy tails (df = 1) cannot throw it off.
      def upper_t_quantile(dof, tail_probability)
        low = 0.0
        high = 1.0
        high *= 2 while t_upper_tail(high, dof) > tail_probability
        guess = high / 2
        NEWTON_STEPS.times do
          tail = t_upper_tail(guess, dof)
          tail > tail_probability ? low = guess : high = guess
          step = guess + ((tail - tail_probability) / t_density(guess, dof))
          step = (low + high) / 2 unless step > low && step < high
          return step if (step - guess).abs <= QUANTILE_TOLERANCE * step

          guess = step
        end
        guess
      end

      # P(T > t) for t >= 0: I_x(dof/2, 1/2) / 2 with x = dof / (dof + t²).
      def t_upper_tail(value, dof)
        regularized_beta(dof / (dof + (value * value)), dof / 2.0, 0.5) / 2
      end

      def t_density(value, dof)
        Math.exp(Math.lgamma((dof + 1) / 2.0)[0] - Math.lgamma(dof / 2.0)[0] - (0.5 * Math.log(dof * Math::PI)) -
                 ((dof + 1) / 2.0 * Math.log(1 + (value * value / dof))))
      end

      # I_x(alpha, beta), by the continued fraction on whichever side converges fast (Numerical Recipes, 6.4).
      def regularized_beta(x, alpha, beta)
        return 0.0 if x <= 0
        return 1.0 if x >= 1
        return 1 - regularized_beta(1 - x, beta, alpha) if x > (alpha + 1) / (alpha + beta + 2)

        log_front = Math.lgamma(alpha + beta)[0] - Math.lgamma(alpha)[0] - Math.lgamma(beta)[0] +
                    (alpha * Math.log(x)) + (beta * Math.log(1 - x))
        Math.exp(log_front) * beta_fraction(x, alpha, beta) / alpha
      end

      # Modified Lentz evaluation of the incomplete beta continued fraction.
      def beta_fraction(x, alpha, beta)
        numerator = 1.0
        denominator = 1 / nonzero(1 - ((alpha + beta) * x / (alpha + 1)))
        result = denominator
        (1..FRACTION_ITERATIONS).each do |index|
          change = 1.0
          fraction_terms(x, alpha, beta, index).each do |term|
            denominator = 1 / nonzero(1 + (term * denominator))
            numerator = nonzero(1 + (term / numerator))
            change = denominator * numerator
            result *= change
          end
          break if (change - 1).abs < FRACTION_EPSILON
        end
        result
      end

      # The even and odd coefficients d(2m), d(2m+1) of the fraction.
      def fraction_terms(x, alpha, beta, index)
        even = index * (beta - index) * x / ((alpha + (2 * index) - 1) * (alpha + (2 * index)))
        odd = -(alpha + index) * (alpha + beta + index) * x / ((alpha + (2 * index)) * (alpha + (2 * index) + 1))
        [even, odd]
      end

      def nonzero(value)
        value.abs < TINY ? TINY : value
      end

      private_class_method :two_sided, :fit_summary, :upper_t_quantile, :t_upper_tail, :t_density, :regularized_beta,
                           :beta_fraction, :fraction_terms, :nonzero
    end
  end
end
