# frozen_string_literal: true

require "test_helper"

# Least squares on several terms: exact data gives back its coefficients, noise gives an interval around them, and
# terms that move together are found out.
class LeastSquaresTest < Minitest::Test
  LeastSquares = Mallard::Analysis::LeastSquares

  def test_exact_data_gives_back_its_coefficients_with_no_width
    rows = [[1, 3, 0], [1, 0, 5], [1, 2, 2], [1, 7, 1], [1, 4, 9]]
    fit = LeastSquares.call(rows, rows.map { |one, a, b| (2 * one) + (10 * a) - (3 * b) })

    fit.coefficients.zip([2, 10, -3]).each { |got, want| assert_in_delta want, got, 1e-9 }
    fit.half_widths.each { |half| assert_in_delta 0, half, 1e-6 }
  end

  def test_noise_gives_an_interval_that_holds_the_truth
    random = Random.new(1)
    rows = Array.new(60) { [1, random.rand(100), random.rand(100)] }
    fit = LeastSquares.call(rows, rows.map { |_, a, b| 5 + (2 * a) + (0 * b) + random.rand(-20.0..20.0) })

    [[1, 2], [2, 0]].each do |term, truth|
      assert_operator (fit.coefficients[term] - truth).abs, :<=, fit.half_widths[term], fit.to_h.inspect
    end
    assert_operator fit.vifs[1], :<, 10
  end

  def test_collinear_terms_have_no_fit_and_nearly_collinear_ones_a_large_vif
    rows = [[1, 2, 4], [1, 3, 6], [1, 5, 10], [1, 1, 2], [1, 8, 16]]
    near = rows.each_with_index.map { |(one, a, b), at| [one, a, b + (at.even? ? 0.01 : -0.01)] }

    assert_nil LeastSquares.call(rows, [1, 2, 3, 4, 5])
    assert_operator LeastSquares.call(near, [1, 2, 3, 4, 5]).vifs[2], :>, 100
  end
end
