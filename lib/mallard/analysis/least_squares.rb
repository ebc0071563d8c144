# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # Ordinary least squares of y on several terms (no intercept unless a term is one), with each coefficient's 95%
    # interval and variance inflation factor. Through the normal equations, on the matrix scaled to a unit diagonal,
    # whose inverse's diagonal is each term's VIF. Pure; the terms are few (a job worker's classes).
    module LeastSquares
      # Coefficients, the half-widths of their 95% intervals (Student t on n - terms df), and the VIFs (1: the term
      # moves apart from the others; large: the others explain it); residuals: y less the fit, per row.
      Fit = Struct.new(:coefficients, :half_widths, :vifs, :residuals, keyword_init: true)

      # Pivots below this (on the scaled matrix, whose diagonal is 1) mean the terms are exactly collinear.
      SINGULAR = 1e-9

      module_function

      # @param rows [Array<Array<Numeric>>] one row of terms per observation
      # @param values [Array<Numeric>] the y of each row
      # @return [Fit, nil] nil when a term is all zeros, the terms are exactly collinear, or no row is left for the
      #   residuals
      def call(rows, values)
        terms = rows.first&.size.to_i
        return if terms.zero? || rows.size <= terms

        gram = Array.new(terms) { |i| Array.new(terms) { |j| rows.sum { |row| row[i] * row[j] } } }
        scale = Array.new(terms) { |i| Math.sqrt(gram[i][i]) }
        return if scale.any?(&:zero?)

        inverse = invert(Array.new(terms) { |i| Array.new(terms) { |j| gram[i][j] / scale[i] / scale[j] } })
        inverse && fit(rows, values, inverse, scale)
      end

      def fit(rows, values, inverse, scale)
        terms = scale.size
        moments = Array.new(terms) { |i| rows.zip(values).sum { |row, y| row[i] * y } }
        beta = Array.new(terms) { |i| (0...terms).sum { |j| inverse[i][j] * moments[j] / scale[i] / scale[j] } }
        residuals = residuals(rows, values, beta)
        Fit.new(coefficients: beta, half_widths: half_widths(residuals, inverse, scale),
                vifs: Array.new(terms) { |i| inverse[i][i] }, residuals: residuals)
      end

      def residuals(rows, values, beta) = rows.zip(values).map { |row, y| y - row.zip(beta).sum { |x, b| x * b } }

      def half_widths(residuals, inverse, scale)
        terms = scale.size
        dof = residuals.size - terms
        variance = residuals.sum { |r| r * r } / dof
        t_value = Statistics.t_quantile(dof)
        Array.new(terms) { |i| t_value * Math.sqrt(variance * inverse[i][i]) / scale[i] }
      end

      # Gauss-Jordan with partial pivoting; nil when a pivot vanishes.
      def invert(matrix)
        size = matrix.size
        work = matrix.each_with_index.map { |row, i| row + Array.new(size) { |j| i == j ? 1.0 : 0.0 } }
        singular = (0...size).any? do |column|
          pivot = (column...size).max_by { |row| work[row][column].abs }
          next true if work[pivot][column].abs < SINGULAR

          work[column], work[pivot] = work[pivot], work[column]
          eliminate(work, column)
          false
        end
        work.map { |row| row.drop(size) } unless singular
      end

      # Divides the pivot's row by the pivot and clears the column from every other row.
      def eliminate(work, column)
        lead = work[column][column]
        work[column] = work[column].map { |value| value / lead }
        work.each_index do |row|
          next if row == column || work[row][column].zero?

          factor = work[row][column]
          work[row] = work[row].zip(work[column]).map { |value, by| value - (factor * by) }
        end
      end

      private_class_method :fit, :residuals, :half_widths, :invert, :eliminate
    end
  end
end
