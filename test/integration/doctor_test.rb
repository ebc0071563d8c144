# frozen_string_literal: true

require "test_helper"
require "json"

# `mallard doctor` against real Ruby processes started under each allocator of the catalog.
class DoctorIntegrationTest < Minitest::Test
  include Processes

  # Several threads that each allocate and keep some strings: a process worth diagnosing.
  WORKLOAD = "$keep = 4.times.map { Thread.new { Array.new(20_000) { 'x' * rand(10..500) } } }.map(&:value)"

  CATALOG = Mallard::Allocators::Catalog.default
  # Read by Debian's 3.1 (3.3 reads RUBY_GC_HEAP_INIT_SLOTS no more: test/ruby33/doctor_test.rb), save the free
  # slots, which no Ruby takes below zero.
  GC_SETTINGS = { "RUBY_GC_HEAP_INIT_SLOTS" => "2000000", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1",
                  "RUBY_GC_HEAP_FREE_SLOTS" => "-5" }.freeze

  CATALOG.select(&:available?).each do |allocator|
    define_method(:"test_names_#{allocator.name.tr("-", "_")}_in_a_process_started_under_it") do
      pid = spawn_ruby(WORKLOAD, env: allocator.env)
      report = doctor_json(pid)

      assert_equal allocator.malloc, report.dig("allocator", "name")
      assert_equal(allocator.library_path ? "preloaded" : "default", report.dig("allocator", "via"))
      allocator.settings.each { |var, value| assert_equal value, report.dig("env", var) }
      assert_equal RUBY_VERSION, report.dig("ruby", "version")
      assert_memory_agrees_with_ps(pid, report)
    end
  end

  def test_memory_figures_are_ordered_as_the_kernel_defines_them
    memory = doctor_json(spawn_ruby(WORKLOAD)).fetch("memory")

    assert_operator memory["uss_kb"], :<=, memory["pss_kb"]
    assert_operator memory["pss_kb"], :<=, memory["rss_kb"]
  end

  def test_counts_threads
    pid = spawn_ruby("6.times { Thread.new { sleep } }")

    assert_equal 7, doctor_json(pid)["threads"]
  end

  def test_glibc_with_many_threads_and_no_arena_limit_is_a_warning
    pid = spawn_ruby("6.times { Thread.new { sleep } }", env: CATALOG.fetch("glibc").env)
    warning = doctor_json(pid)["findings"].find { |f| f["level"] == "warning" }

    assert_match(/glibc malloc with 7 threads and no arena limit/, warning["message"])
    assert_match(/mallard compare/, warning["advice"])
  end

  def test_gc_settings_are_checked_in_the_processs_own_ruby
    report = doctor_json(spawn_ruby("", env: GC_SETTINGS))
    settings = report["settings"].to_h { |setting| [setting["name"], setting] }
    messages = report["findings"].map { |finding| finding["message"] }

    assert_equal "3.1", report.dig("ruby", "version")[/\A\d+\.\d+/], "Debian's 3.1 runs these tests"
    assert_equal({ "RUBY_GC_HEAP_INIT_SLOTS" => "read", "RUBY_GC_HEAP_GROWTH_FACTOR" => "read",
                   "RUBY_GC_HEAP_FREE_SLOTS" => "ignored" }, settings.transform_values { |setting| setting["status"] })
    assert_equal "2000000", settings.dig("RUBY_GC_HEAP_INIT_SLOTS", "read")
    assert_equal "1.100000", settings.dig("RUBY_GC_HEAP_GROWTH_FACTOR", "read")
    assert_equal "it must be greater than 0", settings.dig("RUBY_GC_HEAP_FREE_SLOTS", "reason")
    assert_includes messages,
                    "RUBY_GC_HEAP_FREE_SLOTS=-5 is ignored by Ruby #{RUBY_VERSION}, as it must be greater than 0"
    assert_equal 1, messages.count { |message| message.start_with?("RUBY_GC_") }, messages.inspect
  end

  def test_a_preload_that_did_not_take_effect_is_an_error_and_exit_status_one
    pid = spawn_ruby("", env: { "LD_PRELOAD" => "/nonexistent/libjemalloc.so.2" })
    out, _err, status = mallard("doctor", pid, "--json")

    assert_equal 1, status.exitstatus
    error = JSON.parse(out)["findings"].first
    assert_equal "error", error["level"]
    assert_match(/did not take effect/, error["message"])
  end

  def test_diagnoses_itself_without_arguments
    out, _err, status = mallard("doctor", "--json")

    assert_equal 0, status.exitstatus
    report = JSON.parse(out)
    assert_equal RUBY_VERSION, report.dig("ruby", "version")
    assert_includes report["command"].join(" "), "mallard"
  end

  def test_starts_a_command_under_an_allocator_verifies_it_and_stops_it
    jemalloc = CATALOG.fetch("jemalloc")
    skip "jemalloc is not installed here" unless jemalloc.available?

    out, err, status = mallard("doctor", "--json", "--wait", "0.5", "--allocator", "jemalloc", "--",
                               Gem.ruby, "-e", "sleep")
    report = JSON.parse(out)

    assert_equal 0, status.exitstatus, err
    assert_equal({ "name" => "jemalloc", "verified" => true, "problems" => [] }, report["expected"])
    refute process_exists?(report["pid"]), "the command mallard started is still running"
  end

  def test_terminal_view_shows_the_facts_and_findings
    out, _err, status = mallard("doctor", spawn_ruby("6.times { Thread.new { sleep } }"))

    assert_equal 0, status.exitstatus
    assert_match(/Allocator\s+glibc/, out)
    assert_match(/Memory\s+RSS [\d.]+ MiB · PSS [\d.]+ MiB · USS [\d.]+ MiB/, out)
    assert_match(/MALLOC_ARENA_MAX=\(unset\)/, out)
    assert_match(/! warning glibc malloc with 7 threads/, out)
  end

  private

  def doctor_json(pid)
    out, err, status = mallard("doctor", pid, "--json")
    assert_includes [0, 1], status.exitstatus, err
    JSON.parse(out)
  end

  # Two readings moments apart of an idle process: 5% is the issue's tolerance.
  def assert_memory_agrees_with_ps(pid, report)
    ps_rss = Integer(`ps -o rss= -p #{pid}`.strip)
    rss = report.dig("memory", "rss_kb")

    assert_in_delta ps_rss, rss, ps_rss * 0.05, "mallard RSS #{rss} KB vs ps #{ps_rss} KB"
  end

  def process_exists?(pid)
    Process.kill(0, pid)
    true
  rescue Errno::ESRCH
    false
  end
end
