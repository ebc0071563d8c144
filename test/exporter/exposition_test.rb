# frozen_string_literal: true

require "test_helper"
require "mallard/exporter/exposition"
require "mallard/exporter/settings"

# The exposition of stored snapshots, in both formats; checked against the OpenMetrics rules and, for the text
# format, by Prometheus's own promtool.
class ExpositionTest < Minitest::Test
  Exposition = Mallard::Exporter::Exposition
  Detection = Mallard::Allocators::Detection
  READINGS = { "gc.count" => 12, "gc.minor_gc_count" => 9, "gc.major_gc_count" => 3, "gc.time" => 250,
               "gc.heap_live_slots" => 40_000, "gc.old_objects" => 30_000, "gc.heap_allocated_pages" => 90,
               "malloc_in_use" => 5_000_000, "malloc.stats.resident" => 9_000_000, "trims" => 4 }.freeze

  # Probe::CgroupMemory#read's, with no limit set.
  CONTAINER = { version: 2, path: "/system.slice/app.service", usage_kb: 300, peak_kb: 400, anon_kb: 200, file_kb: 90,
                limit_kb: nil, failcnt: 0, oom_kills: 1, processes: 3 }.freeze

  def snapshots
    memory = Mallard::Probe::MemoryReading.new(rss_kb: 100, pss_kb: 60, uss_kb: 40, swap_kb: 0)
    jemalloc = Detection.new(name: "jemalloc", via: "preloaded", path: "/usr/lib/libjemalloc.so.2")
    [Exposition::Snapshot.new(pid: 10, role: "master", memory: memory, readings: READINGS, allocator: jemalloc,
                              container: CONTAINER,
                              conditions: { cpus: 2, pool_threads: 0, ruby: "3.3.8", yjit: true },
                              requests: { "request.GET:/users/:id" => 7, "request.POST:other" => 1 }),
     Exposition::Snapshot.new(pid: 11, role: "worker", memory: memory, readings: { "gc.count" => 1 },
                              allocator: nil)]
  end

  def test_open_metrics_declares_each_family_once_with_unit_and_help_and_ends_with_eof
    text = Exposition.new(snapshots).render
    lines = text.lines(chomp: true)

    assert_equal "# EOF", lines.last
    assert_equal 1, lines.count("# EOF")
    families = lines.grep(/\A# TYPE /).map { |line| line.split[2] }
    assert_equal families.uniq, families
    lines.grep(/\A# UNIT /).each do |line|
      _, _, name, unit = line.split
      assert name.end_with?("_#{unit}"), "#{name}: a family's name ends with its unit"
    end
    assert_includes lines, "# TYPE ruby_gc_runs counter"
    assert_includes lines, "# UNIT ruby_gc_time_seconds seconds"
  end

  def test_open_metrics_samples_carry_their_family_and_suffix
    lines = Exposition.new(snapshots).render.lines(chomp: true)

    assert_includes lines, 'ruby_process_pss_bytes{pid="10",role="master"} 61440'
    assert_includes lines, 'ruby_gc_runs_total{pid="10",role="master",kind="major"} 3'
    assert_includes lines, 'ruby_gc_time_seconds_total{pid="10",role="master"} 0.25'
    assert_includes lines, 'ruby_malloc_stat_bytes{pid="10",role="master",stat="stats.resident"} 9000000'
    assert_includes lines, 'ruby_malloc_trims_total{pid="10",role="master"} 4'
    assert_includes lines, "# TYPE ruby_allocator info"
    assert_includes lines,
                    'ruby_allocator_info{pid="10",role="master",allocator="jemalloc",via="preloaded",' \
                    'library="/usr/lib/libjemalloc.so.2"} 1'
    samples = lines.reject { |line| line.start_with?("#") }
    assert samples.all? { |line| line.match?(/\A[a-z_]+\{pid="1[01]",role="(master|worker)"[^}]*\} [\d.]+\z/) },
           samples.join("\n")
  end

  # The cgroup's charge by kind, on the master alone; a limit not set is no sample, never a zero.
  def test_the_container_memory_is_the_masters_by_kind
    lines = Exposition.new(snapshots).render.lines(chomp: true)
    cgroup = 'cgroup="/system.slice/app.service"'

    assert_includes lines, %(ruby_container_memory_bytes{pid="10",role="master",kind="current",#{cgroup}} 307200)
    assert_includes lines, %(ruby_container_memory_bytes{pid="10",role="master",kind="file",#{cgroup}} 92160)
    assert_includes lines, %(ruby_container_oom_kills_total{pid="10",role="master",#{cgroup}} 1)
    assert_equal 4, lines.grep(/\Aruby_container_memory_bytes\{/).size, "current, anon, file, peak: no limit"
  end

  # What a lab sets against production: the CPUs, Puma's pool threads, the Ruby and YJIT, the tree's requests.
  def test_the_conditions_a_lab_is_set_against
    lines = Exposition.new(snapshots).render.lines(chomp: true)

    assert_includes lines, 'ruby_http_requests_total{pid="10",role="master",method="GET",path="/users/:id"} 7'
    assert_includes lines, 'ruby_http_requests_total{pid="10",role="master",method="POST",path="other"} 1'
    assert_includes lines, "# TYPE ruby_http_requests counter"

    assert_includes lines, 'ruby_process_cpus{pid="10",role="master"} 2'
    assert_includes lines, 'ruby_puma_pool_threads{pid="10",role="master"} 0'
    assert_includes lines, 'ruby_version_info{pid="10",role="master",version="3.3.8",yjit="true"} 1'
    assert_empty lines.grep(/\Aruby_process_cpus\{pid="11"/), "a process whose conditions were not read"
  end

  # A reading a process did not give is no sample, never a zero.
  def test_a_missing_reading_is_left_out
    lines = Exposition.new(snapshots).render.lines(chomp: true)

    assert_empty lines.grep(/ruby_gc_old_objects\{pid="11"/)
    assert_empty lines.grep(/ruby_allocator_info\{pid="11"/)
    assert_equal 1, lines.grep(/\Aruby_process_rss_bytes\{pid="11"/).size
  end

  def test_the_text_format_passes_promtool
    text = Exposition.new(snapshots, open_metrics: false).render
    out, status = Open3.capture2e("promtool", "check", "metrics", stdin_data: text)

    assert_predicate status, :success?, out
    assert_empty out
    refute_includes text, "# EOF"
    assert_includes text, "# TYPE ruby_gc_runs_total counter"
    assert_includes text, "# TYPE ruby_allocator_info gauge"
    assert_equal "text/plain; version=0.0.4; charset=utf-8", Exposition.new([], open_metrics: false).content_type
  end

  def test_label_values_are_escaped
    odd = Detection.new(name: "unknown", via: "linked", path: "/opt/a \"b\"\\c\nd.so")
    snapshot = Exposition::Snapshot.new(pid: 1, role: "master", memory: nil, readings: {}, allocator: odd)
    line = Exposition.new([snapshot]).render.lines.grep(/\Aruby_allocator_info/).first

    assert_includes line, 'library="/opt/a \\"b\\"\\\\c\\nd.so"'
  end

  def test_content_type_is_open_metrics_one_oh
    assert_equal "application/openmetrics-text; version=1.0.0; charset=utf-8", Exposition.new([]).content_type
    assert_equal "# EOF\n", Exposition.new([]).render
  end
end
