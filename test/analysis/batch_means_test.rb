# frozen_string_literal: true

require "test_helper"

# One batch-means rule, with the fewest batches each statistic can use.
class BatchMeansTest < Minitest::Test
  BatchMeans = Mallard::Analysis::BatchMeans

  def test_three_samples_a_batch_up_to_ten_batches
    assert_equal 5, BatchMeans.count(16, min: 2)
    assert_equal 10, BatchMeans.count(300, min: 3)
  end

  def test_fewer_samples_make_shorter_batches_down_to_the_minimum
    assert_equal 3, BatchMeans.count(6, min: 3), "a slope over batch means needs three (LeakVerdict)"
    assert_equal 2, BatchMeans.count(6, min: 2)
    assert_equal [1.5, 3.5, 5.5], BatchMeans.of([1, 2, 3, 4, 5, 6], min: 3)
  end
end
