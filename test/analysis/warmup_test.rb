# frozen_string_literal: true

require "test_helper"
require "mallard/analysis/warmup"

class WarmupTest < Minitest::Test
  Warmup = Mallard::Analysis::Warmup
  SEEDS = (1..20)

  def test_too_few_samples_have_no_warm_up
    assert_equal 0, Warmup.detect([1, 50, 90, 100, 100, 100, 100])
  end

  def test_a_constant_series_has_no_warm_up
    assert_equal 0, Warmup.detect([500] * 30)
  end

  def test_a_flat_noisy_series_has_no_warm_up
    SEEDS.each do |seed|
      random = Random.new(seed)

      assert_equal 0, Warmup.detect(series(100, random) { 80_000 }), "seed #{seed}"
    end
  end

  def test_a_steep_ramp_then_a_plateau_ends_where_the_ramp_ends
    assert_equal 20, Warmup.detect(Array.new(60) { |i| 50_000 + (1500 * [i, 20].min) })
    SEEDS.each do |seed|
      random = Random.new(seed)

      assert_includes 19..22, Warmup.detect(series(100, random) { |i| 50_000 + (1500 * [i, 20].min) }), "seed #{seed}"
    end
  end

  # A leak after warm-up is still steady state: the knee is where the steep part ends, not later.
  def test_a_ramp_then_a_leak_at_a_tenth_of_its_slope_ends_where_the_ramp_ends
    SEEDS.each do |seed|
      random = Random.new(seed)
      values = series(100, random) { |i| 50_000 + (1500 * [i, 20].min) + (150 * [i - 20, 0].max) }

      assert_includes 19..22, Warmup.detect(values), "seed #{seed}"
    end
  end

  def test_a_steady_leak_is_not_warm_up
    SEEDS.each do |seed|
      random = Random.new(seed)

      assert_equal 0, Warmup.detect(series(100, random) { |i| 50_000 + (150 * i) }), "seed #{seed}"
    end
  end

  # After the knee a heap can keep settling, its growth rate falling: that is warm-up too, up to n/2.
  def test_a_heap_that_keeps_settling_is_still_warming_up
    SEEDS.each do |seed|
      random = Random.new(seed)
      values = series(60, random, noise: 20) { |i| 24_000 + (1200 * Math.log(1 + i)) }

      assert_includes 15..30, Warmup.detect(values), "seed #{seed}"
    end
  end

  # An exponential approach bends gradually; the steady window should start once little of the rise is left.
  def test_a_gradual_warm_up_ends_once_most_of_the_rise_is_done
    SEEDS.each do |seed|
      random = Random.new(seed)
      start = Warmup.detect(series(100, random) { |i| 50_000 + (30_000 * (1 - Math.exp(-i / 8.0))) })

      assert_includes 24..50, start, "seed #{seed}: #{(100 * Math.exp(-start / 8.0)).round}% of the rise left"
    end
  end

  def test_the_steady_window_keeps_at_least_half_the_data
    assert_equal 50, Warmup.detect(Array.new(100) { |i| 1000 * [i, 80].min })
  end

  private

  def series(size, random, noise: 200)
    Array.new(size) { |i| yield(i) + (noise * gaussian(random)) }
  end

  def gaussian(random)
    Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)
  end
end
