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

  def test_memory_has_a_floor_of_a_mebibyte
    assert_in_delta 3.7, Significance.memory_noise_pct(27_620), 0.01
    assert_equal 1.0, Significance.memory_noise_pct(500_000), "1% of 488 MiB is above the floor"
    assert_equal 1.0, Significance.memory_noise_pct(nil)
    refute Significance.significant?([-3.6, -1.3], Significance.memory_noise_pct(27_620))
    assert Significance.significant?([-9.0, -4.0], Significance.memory_noise_pct(27_620))
  end
end
