# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# `mallard report` and `mallard diff` on stored comparisons and on directories that are not runs: the real
# executable, on files written here, no subject started.
class ReportDiffStoredTest < Minitest::Test
  include Processes

  COMPARISON = File.expand_path("../fixtures/runs/compare_summary.json", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-report-stored-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_report_shows_a_comparison_again
    run = comparison("before")
    out, err, status = mallard("report", run)

    assert_equal 0, status.exitstatus, err
    assert_match(%r{\Amallard compare — examples/demo}, out)
    assert_match(/Recommendation: glibc-arena2/, out)

    out, = mallard("report", run, "--json")
    stored = JSON.parse(File.read(COMPARISON))
    stored["recommendation"].delete("snippets") # rendered by the views from the catalog since schema 2
    assert_holds stored, JSON.parse(out)
  end

  # Every figure the stored summary holds, the report holds the same; keys a later schema added may be nil.
  def assert_holds(stored, shown, path = "summary")
    case stored
    when Hash then stored.each { |key, value| assert_holds(value, shown&.fetch(key, nil), "#{path}.#{key}") }
    when Array
      assert_equal stored.size, shown&.size, path
      stored.each_with_index { |value, i| assert_holds(value, shown[i], "#{path}[#{i}]") }
    when nil then assert_nil shown, path
    else assert_equal stored, shown, path
    end
  end

  def test_a_comparison_without_its_summary_names_the_runs_to_report_instead
    run = File.join(@tmp, "stopped")
    %w[glibc-1 jemalloc-1].each { |name| write_json(File.join(run, name, "meta.json"), { command: "soak" }) }
    write_json(File.join(run, "meta.json"), { command: "compare" })
    _out, err, status = mallard("report", run)

    assert_equal 66, status.exitstatus
    assert_match(/comparison without summary\.json/, err)
    assert_includes err, "mallard report #{File.join(run, 'glibc-1')}"
    assert_includes err, "mallard report #{File.join(run, 'jemalloc-1')}"
  end

  def test_diff_of_two_comparisons_is_per_configuration
    out, err, status = mallard("diff", comparison("before"), jemalloc_grown("after"), "--json")
    rows = JSON.parse(out)["rows"].to_h { |row| [row["name"], row] }

    assert_equal 0, status.exitstatus, err
    assert_equal %w[glibc glibc-arena2 jemalloc mimalloc], rows.keys
    assert rows["jemalloc"]["significant"], rows["jemalloc"].inspect
    assert_in_delta 20, rows["jemalloc"]["pct"], 0.5
    refute rows["glibc"]["significant"]
  end

  def test_diff_of_two_comparisons_fails_over_a_significant_regression_beyond_the_threshold
    before = comparison("before")
    after = jemalloc_grown("after")
    out, err, status = mallard("diff", before, after, "--fail-over", "10")

    assert_equal 1, status.exitstatus
    assert_match(/\Amallard: diff: jemalloc: steady RSS \+20\.0% \(/, err)
    assert_match(/jemalloc .*significant: worse/, out)
    assert_equal 0, mallard("diff", before, after, "--fail-over", "30").last.exitstatus
  end

  def test_runs_of_different_kinds_are_refused
    soak = File.join(@tmp, "soak")
    write_json(File.join(soak, "meta.json"), { command: "soak", phases: {} })
    _out, err, status = mallard("diff", comparison("before"), soak)

    assert_equal 64, status.exitstatus
    assert_match(/is a compare run and .* a soak run/, err)
  end

  def test_a_directory_that_is_not_a_run_is_not_found
    _out, err, status = mallard("report", @tmp)

    assert_equal 66, status.exitstatus
    assert_equal 1, err.lines.size
    assert_match(/is not a mallard run directory/, err)
  end

  # The exit lists of docs/report.md and docs/diff.md: 65 for a run a newer mallard wrote, from both commands.
  def test_a_run_of_a_newer_schema_is_refused_as_a_failed_measurement
    newer = comparison("newer")
    summary = JSON.parse(File.read(File.join(newer, "summary.json")))
    write_json(File.join(newer, "summary.json"), summary.merge("schema_version" => 99))

    [["report", newer], ["diff", comparison("before"), newer]].each do |args|
      _out, err, status = mallard(*args)
      assert_equal 65, status.exitstatus, "#{args.first}: #{err}"
      assert_match(/written by a newer mallard/, err)
    end
  end

  def test_bad_usage
    assert_equal 64, mallard("diff", comparison("before")).last.exitstatus
    assert_equal 64, mallard("diff", comparison("before"), comparison("before"), "--metric", "heap").last.exitstatus
    assert_equal 64, mallard("diff", comparison("before"), comparison("before"), "--fail-over", "-1").last.exitstatus
    assert_equal 64, mallard("report").last.exitstatus
  end

  def test_html_is_written_and_said_where
    file = File.join(@tmp, "report.html")
    _out, err, status = mallard("report", comparison("before"), "--html", file)

    assert_equal 0, status.exitstatus, err
    assert_includes File.read(file), "<h2>Recommendation: glibc-arena2</h2>"
    assert_match(/HTML report written to #{Regexp.escape(file)}/, err)
  end

  def test_html_into_a_missing_directory_is_refused_before_anything_runs
    _out, err, status = mallard("report", comparison("before"), "--html", "/nonexistent/dir/report.html")

    assert_equal 64, status.exitstatus
    assert_match(%r{--html: no directory /nonexistent/dir}, err)
  end

  private

  # A comparison directory holding the fixture's summary, its runs' figures changed by the block if given.
  def comparison(name)
    summary = JSON.parse(File.read(COMPARISON))
    summary["rows"].each { |row| row["runs"].each { |run| yield row["name"], run } } if block_given?
    run = File.join(@tmp, name)
    write_json(File.join(run, "summary.json"), summary)
    run
  end

  # The fixture with jemalloc's steady memory 20% higher in every repeat.
  def jemalloc_grown(name)
    comparison(name) do |row, run|
      run["steady_rss_kb"] = (run["steady_rss_kb"] * 1.2).round if row == "jemalloc"
    end
  end

  def write_json(path, data)
    FileUtils.mkdir_p(File.dirname(path))
    File.write(path, JSON.generate(data))
  end
end
