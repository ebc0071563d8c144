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

  # One run against another cannot see how far runs of one app settle apart: the band is the allowance for that,
  # or the 1 MiB floor's share of a small app.
  def test_one_run_each_is_judged_against_the_run_to_run_allowance_or_the_floor
    assert_equal Significance::RUN_TO_RUN_PCT, Significance.memory_noise_pct([27_620, nil], [28_340, nil])
    assert_in_delta 25.6, Significance.memory_noise_pct([4_000, nil], [4_000, nil]), 0.01, "1 MiB of 3.9 MiB"
    assert_equal Significance::RUN_TO_RUN_PCT, Significance.memory_noise_pct([nil, nil], [4_000, nil])
    worker_pair = Significance.memory_noise_pct([87_550, nil], [82_650, nil])

    refute Significance.significant?([-8.6, -2.5], worker_pair), "issue 20's worker pair"
    assert Significance.significant?([-30.0, -14.0], worker_pair)
    assert_in_delta 40.0, Significance.memory_noise_pct([100_000, 40_000], [100_000, nil]), 0.01, "A held 40% free"
    assert_in_delta 30.0, Significance.memory_noise_pct([100_000, nil], [100_000, 30_000]), 0.01, "B held 30 MiB"
    assert_in_delta 34.1, Significance.memory_noise_pct([27_000, nil], [114_000, 29_000]), 0.1, "B owned 85 MiB"
    assert_equal Significance::RUN_TO_RUN_PCT, Significance.memory_noise_pct([100_000, 2_000], [100_000, 2_000])
  end
end
