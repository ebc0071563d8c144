# frozen_string_literal: true

require "test_helper"

# Whether --until-resolved's intervals are narrow enough, and which are not, as data (CompareSentencesTest words it).
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
    assert_empty resolution.too_wide
    assert_nil resolution.unresolved
  end

  def test_what_stays_too_wide_is_named_with_its_half_width
    configs = [config("jemalloc", rss_ci: [-12.0, -8.0], cpu_ci: [-10.0, 14.0]), config("mimalloc", rss_ci: nil,
                                                                                                    cpu_ci: [0.0, 1.0])]
    resolution = Mallard::Analysis::Resolution.call(configs, pct: 3, baseline: "glibc")

    refute resolution.resolved
    found = resolution.too_wide.map { |entry| entry.to_h.values_at(:name, :figure, :half_width) }

    assert_equal [["jemalloc", "cpu", 12.0], ["mimalloc", "memory", nil]], found
  end
end
