# frozen_string_literal: true

require "test_helper"
require "mallard/exporter/exposition"

# What `mallard fleet` asks Prometheus: a series the exporter writes, under a selector checked before anything is
# asked.
class FleetQueryTest < Minitest::Test
  FleetQuery = Mallard::Probe::FleetQuery
  Exposition = Mallard::Exporter::Exposition

  def test_a_selector_with_or_without_braces_joins_the_metrics_own_label
    assert_equal 'ruby_process_pss_bytes{job="app",role="worker"}',
                 FleetQuery.call("pss", '{job="app", role="worker"}')
    assert_equal 'ruby_memory_part_bytes{part="malloc held free",pod=~"web-a.*"}',
                 FleetQuery.call("malloc-held", 'pod=~"web-a.*"')
    assert_equal 'ruby_process_rss_bytes{path="a,b"}', FleetQuery.call("rss", '{path="a,b"}')
  end

  def test_anything_but_label_matchers_is_a_usage_error
    ['job="app"}or vector(1){', "", "{}", "{job=app}", '{job=~"a" or x}'].each do |selector|
      error = assert_raises(Mallard::UsageError) { FleetQuery.call("pss", selector) }
      assert_match(/is not a Prometheus label selector/, error.message)
    end
  end

  def test_the_step_keeps_a_window_under_the_points_prometheus_allows_and_never_under_a_second
    assert_in_delta 1.0, FleetQuery.step_for(90)
    assert_in_delta 4.0, FleetQuery.step_for(3600)
    assert_in_delta 87.0, FleetQuery.step_for(86_400)
  end

  # The names fleet asks for are the ones the exporter writes: every --metric finds its series in an exposition.
  def test_every_metric_is_a_series_the_exporter_writes
    parts = Mallard::Analysis::LedgerParts::NAMES.to_h { |name| ["part.#{name.tr(' ', '_')}", 1024] }
    memory = Mallard::Probe::MemoryReading.new(rss_kb: 100, pss_kb: 60, uss_kb: 40, swap_kb: 0)
    snapshot = Exposition::Snapshot.new(pid: 10, role: "master", memory: memory,
                                        readings: parts.merge("malloc_in_use" => 5_000), allocator: nil)
    lines = Exposition.new([snapshot]).render.lines

    FleetQuery::METRICS.each do |metric, series|
      name, label = series.delete_suffix("}").split("{", 2)
      assert(lines.any? { |line| line.start_with?("#{name}{") && line.include?(label.to_s) }, metric)
    end
    assert_equal Mallard::Analysis::LedgerParts::NAMES.sort, FleetQuery::PARTS.values.sort
  end
end
