# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# `mallard report` on the stored boot run (test/fixtures/runs/boot), driven in-process: the terminal view, the
# summary as JSON, the HTML report, and a boot killed before it wrote summary.json.
class ReportBootTest < Minitest::Test
  include CliRuns
  RUN = File.expand_path("../fixtures/runs/boot", __dir__)
  # Stored before `method` was renamed `methodology`: it loads under the new key, and is written with it; and before
  # malloc_stopped was a member of its own, which it has none of.
  STORED = JSON.parse(File.read(File.join(RUN, "summary.json"))).then do |stored|
    stored.merge("methodology" => stored["method"], "malloc_stopped" => nil).except("method")
  end

  def setup
    @tmp = Dir.mktmpdir("mallard-report-boot-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_the_terminal_shows_the_boot_as_mallard_boot_printed_it
    status, out, err = run_cli("report", RUN)

    assert_equal 0, status, err
    assert_equal "mallard boot — Bundler app /work/main/test/fixtures/boot/app (production)\n", out.lines.first
    assert_match(/^  Total    33\.8 MiB \(95% interval 33\.7 … 33\.8 MiB, ±0\.1%\), 5 repeats/, out)
    assert_includes out, "    ballast/words: 5.1 MiB (5.0 … 5.6) (also required by: ballast/table)"
    assert_match(/^  Workers  2 workers/, out)
    assert_empty err
  end

  def test_json_is_the_stored_summary
    status, out, = run_cli("report", RUN, "--json")

    assert_equal 0, status
    assert_equal STORED, JSON.parse(out)
  end

  def test_html_is_the_boot_page_and_said_where
    file = File.join(@tmp, "boot.html")
    status, _out, err = run_cli("report", RUN, "--html", file)
    html = File.read(file)

    assert_equal 0, status, err
    assert_includes html, "<h1>mallard boot — Bundler app /work/main/test/fixtures/boot/app (production)</h1>"
    assert_equal 5, html.scan('<rect class="icicle-node"').size
    assert_includes html, '<table class="boot-gems">'
    assert_equal "mallard: HTML report written to #{file}\n", err
  end

  # The same figures again from its samples, and said so on stderr (so --json stays one object).
  def test_a_boot_without_its_summary_is_summarised_from_its_samples
    run = File.join(@tmp, "killed")
    FileUtils.mkdir_p(run)
    FileUtils.cp(%w[meta.json samples.jsonl].map { |name| File.join(RUN, name) }, run)
    status, out, err = run_cli("report", run, "--json")

    assert_equal 0, status, err
    assert_equal STORED, JSON.parse(out)
    assert_equal "mallard: #{run} has no summary.json; summarised from its raw files\n", err
  end
end
