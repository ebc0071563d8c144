# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# compare --gc end to end: the baseline soaked first for its own GC, the RUBY_GC_* sets that suggests run as rows of
# their own, checked in the app's Ruby and verified in each process, and the suggestions kept with why.
class CompareGcIntegrationTest < Minitest::Test
  include Processes

  BOOT_HEAVY = File.expand_path("../fixtures/apps/boot_heavy", __dir__)
  JOBS = File.expand_path("../fixtures/jobs", __dir__)
  FINDINGS = { "gc-growth" => %w[heap_grew heap_mostly_free heap_flat], "gc-free" => %w[majors_ran no_majors],
               "gc-malloc" => %w[malloc_triggered few_malloc_gcs],
               "gc-after-boot" => %w[boot_left_heap old_uncollected boot_heap_kept no_boot_hook] }.freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-compare-gc-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_the_baselines_gc_suggests_rows_that_run_checked_and_verified
    out, err, status = mallard("compare", BOOT_HEAVY, "--gc", "--json", "--out", File.join(@tmp, "run"),
                               "--repeat", "1", "--duration", "4", timeout: 240)
    assert_equal 0, status.exitstatus, err
    summary = JSON.parse(out)
    suggested = assert_each_suggestion_says_why(summary["gc_suggestions"])

    assert File.exist?(File.join(@tmp, "run", "gc-baseline", "summary.json")), "the baseline's soak is kept"
    assert_includes suggested.map { |found| found["name"] }, "gc-after-boot",
                    "a boot that allocates 10× what it keeps: #{summary['gc_suggestions'].last}"
    assert_equal(["glibc", *suggested.map { |found| found["name"] }], summary["rows"].map { |row| row["name"] })
    suggested.each { |found| assert_row_took(summary, found) }
  end

  # A job worker's --gc works like a web app's: the baseline's GC under its jobs suggests the sets, which run as rows
  # keyed on jobs (and every run carries the agent, which counts them).
  def test_a_job_workers_gc_suggests_rows_keyed_on_jobs
    out, err, status = mallard("compare", "--sidekiq", "--workload", File.join(JOBS, "steady.rb"), "--gc", "--json",
                               "--out", File.join(@tmp, "jobs"), "--repeat", "1", "--duration", "3", JOBS, "--",
                               "sidekiq", "-r", "./jobs.rb", "-c", "5", timeout: 240)
    assert_equal 0, status.exitstatus, err
    summary = JSON.parse(out)
    suggested = assert_each_suggestion_says_why(summary["gc_suggestions"])

    assert_equal "instrumented", summary["figures_from"]
    assert_equal "no_boot_hook", summary["gc_suggestions"].last["finding"], "the worker's command boots it itself"
    suggested.each { |found| assert_row_took(summary, found) }
    summary["configs"].each { |config| assert_operator config.dig("rps", "median"), :>, 10, "jobs/s: #{config}" }
  end

  private

  # @return [Array<Hash>] those suggested
  def assert_each_suggestion_says_why(suggestions)
    assert_equal(FINDINGS.keys, suggestions.map { |found| found["name"] })
    suggestions.each { |found| assert_includes FINDINGS.fetch(found["name"]), found["finding"] }
    suggestions.select { |found| found["suggested"] }
  end

  def assert_row_took(summary, found)
    row = summary["rows"].find { |candidate| candidate["name"] == found["name"] }

    assert row["verified"], "#{found['name']} ran with its variables: #{row.inspect}"
    assert_equal found["settings"].keys.sort, row["settings_checks"].map { |check| check["name"] }.sort
    assert(row["settings_checks"].all? { |check| check["status"] == "read" }, row["settings_checks"].inspect)
  end
end
