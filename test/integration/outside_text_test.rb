# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# Text from outside mallard — a subject's output, its command line, the app's path — holding bytes that are
# not UTF-8 or that a terminal would obey: every run still ends with its files, its report and a clean terminal.
class OutsideTextIntegrationTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  # C0 controls but tab and newline, DEL, and C1 (as UTF-8): what must never reach the user's terminal raw.
  RAW_CONTROL = /[\x00-\x08\x0B-\x1F\x7F\u0080-\u009F]/
  Text = Mallard::Text

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-outside-text-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # The configuration that fails prints a last line ending in \xFF; the comparison goes on without it.
  def test_a_failed_configuration_whose_output_is_not_utf8_still_leaves_a_summary_and_reports
    skip "jemalloc is not installed" unless Mallard::Allocators::Catalog.default.fetch("jemalloc").available?

    run_dir = File.join(@tmp, "run")
    out, err, status = mallard("compare", File.join(APPS, "garbled"), "--allocators", "glibc,jemalloc",
                               "--repeat", "2", "--duration", "3", "--out", run_dir)

    assert_equal 0, status.exitstatus, err
    assert_includes out, "Recommendation"
    summary = read_json(run_dir, "summary.json")
    assert_counted_runs 2, summary, "glibc"
    jemalloc = summary["rows"].find { |row| row["name"] == "jemalloc" }
    assert_match(/exited \(exit status 1\) before it was up/, jemalloc["failed"])
    assert_includes jemalloc["output_tail"].join("\n"), "x \\xFF"
    assert_includes report(run_dir).last, "x \\xFF"
  end

  # Its command line carries a title and a bold sequence, its output clears the screen, colours and holds a NUL.
  def test_a_subject_that_prints_escape_sequences_and_a_nul_before_dying_reaches_the_terminal_inert
    script = 'print "\e[2J\e[31mred\e[0m and a NUL:\0\n", ARGV[0], "\n"; exit 3'
    url = "http://127.0.0.1:#{Mallard::Target::FreePort.pick}/"
    _out, err, status = mallard("soak", "--url", url, "--out", File.join(@tmp, "run"),
                                "--", Gem.ruby, "-e", script, "\e]0;pwned\a\e[1mbold")

    assert_equal 69, status.exitstatus, err
    assert_includes err, "last lines of its output"
    assert_includes err, "| red and a NUL:\\x00"
    assert_includes err, "| bold"
    refute_match RAW_CONTROL, err
  end

  # A newline and a byte that is not UTF-8 in the app's directory name. (A request path with one is refused
  # before anything starts: test/cli/measure_options_test.rb.)
  def test_an_app_directory_named_with_a_newline_and_a_bad_byte_is_soaked_and_reported_on_one_line
    app = app_named("app\nname \xff")
    run_dir = File.join(@tmp, "run")
    out, err, status = mallard("soak", app, "--duration", "2", "--out", run_dir)

    assert_equal 0, status.exitstatus, err
    assert_equal "mallard soak — #{Text.printable(app)} (Puma, 5 threads, 0 workers)\n", out.lines.first
    assert_equal "mallard: measuring #{Text.printable(app)} (Puma, 5 threads, 0 workers)\n", err.lines.first
    refute_match RAW_CONTROL, out + err
    meta = read_json(run_dir, "meta.json")
    assert_equal "#{Text.scrub(app)} (Puma, 5 threads, 0 workers)", meta.dig("target", "description")
    assert_includes meta["argv"], Text.scrub(app)
    assert_includes report(run_dir).first, "mallard soak — #{Text.printable(app)}"
  end

  # The run directory's own path (here the default one, under a working directory named so) and the subject's
  # arguments. A script, as Puma itself refuses a rackup path that is not UTF-8.
  def test_a_run_directory_whose_path_is_not_utf8_still_gets_its_summary_and_report
    here = File.join(@tmp, "cwd\nwith \xfe")
    FileUtils.mkdir_p(here)
    script = File.join(here, "job\xfd.rb")
    File.write(script, "puts ARGV.first.bytesize\n")

    out, err, status = mallard("soak", "--script", script, "--interval", "0.1", "--", "arg \xfc", chdir: here)

    assert_equal 0, status.exitstatus, err
    refute_match RAW_CONTROL, out + err
    run_dir = Dir.glob(File.join(here.b, ".mallard", "runs", "*")).first
    summary = read_json(run_dir, "summary.json")
    assert_equal Text.scrub(run_dir), summary["run_dir"]
    assert_equal "ruby #{Text.scrub(script)} arg \\xFC", summary.dig("target", "description")
    assert_equal "5\n", File.read(File.join(run_dir, "subject.log")), "the subject gets its argument's bytes"
    assert_includes report(run_dir).first, "Run      #{Text.printable(run_dir)}"
  end

  private

  # A run not counted says why in the message: its row's failure, or the problems of its runs shown but not counted.
  def assert_counted_runs(expected, summary, name)
    row = summary["rows"].find { |candidate| candidate["name"] == name }
    assert_equal expected, row["runs"].size, row.slice("failed", "invalid_runs").inspect
  end

  def app_named(name)
    app = File.join(@tmp, name)
    FileUtils.mkdir_p(app)
    FileUtils.cp(File.join(APPS, "hello", "config.ru"), app)
    app
  end

  # Half the requests went to the percent-encoded path, which the app does not know.
  # `mallard report --html` on the stored run: [the terminal report, the HTML].
  def report(run_dir)
    file = File.join(@tmp, "report.html")
    out, err, status = mallard("report", run_dir, "--html", file)
    assert_equal 0, status.exitstatus, err
    refute_match RAW_CONTROL, out
    html = File.binread(file).force_encoding(Encoding::UTF_8)
    assert html.valid_encoding?, "the HTML report is not UTF-8"
    [out, html]
  end

  # Valid JSON is valid UTF-8: a lenient parser would accept the bad bytes that a strict one refuses.
  def read_json(run_dir, name)
    text = File.binread(File.join(run_dir, name)).force_encoding(Encoding::UTF_8)
    assert text.valid_encoding?, "#{name} is not UTF-8"
    JSON.parse(text)
  end
end
