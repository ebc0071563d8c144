# frozen_string_literal: true

require "test_helper"

class SignificanceTest < Minitest::Test
  Significance = Mallard::Analysis::Significance

  def test_a_change_counts_only_when_its_whole_interval_lies_beyond_the_noise_band
    assert Significance.significant?([-9.5, -1.2])
    assert Significance.significant?([1.01, 30.0])
    refute Significance.significant?([-9.5, -0.2]), "excludes zero, reaches into the band"
    refute Significance.significant?([-2.0, 3.0])
    refute Significance.significant?(nil)
  end

  def test_a_change_told_from_zero_but_not_from_noise_is_within_noise
    assert Significance.within_noise?([-0.8, -0.2])
    assert Significance.within_noise?([0.3, 4.0])
    refute Significance.within_noise?([-0.5, 0.5]), "holds zero: no detectable difference"
    refute Significance.within_noise?([-5.0, -2.0]), "significant"
    refute Significance.within_noise?(nil)
  end
end
