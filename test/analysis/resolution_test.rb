# frozen_string_literal: true

require "test_helper"

class ResolutionTest < Minitest::Test
  def config(name, rss_ci:, cpu_ci:)
    Mallard::Summary::Config.new(name: name, repeats: 3,
                                 vs_baseline: Mallard::Summary::Versus.new(rss_pct_ci: rss_ci, cpu_pct_ci: cpu_ci))
  end

  def test_every_interval_under_the_half_width_is_resolved
    configs = [config("glibc", rss_ci: nil, cpu_ci: nil),
               config("jemalloc", rss_ci: [-12.0, -8.0], cpu_ci: [-1.0, 3.0])]
    resolution = Mallard::Analysis::Resolution.call(configs, pct: 3, baseline: "glibc")

    assert resolution.resolved
    assert_empty resolution.unresolved
  end

  def test_what_stays_too_wide_is_named_with_its_half_width
    configs = [config("jemalloc", rss_ci: [-12.0, -8.0], cpu_ci: [-10.0, 14.0]), config("mimalloc", rss_ci: nil,
                                                                                                    cpu_ci: [0.0, 1.0])]
    resolution = Mallard::Analysis::Resolution.call(configs, pct: 3, baseline: "glibc")

    refute resolution.resolved
    assert_equal ["jemalloc CPU per request: ±12.0 points", "mimalloc memory: no interval yet"], resolution.unresolved
  end
end
