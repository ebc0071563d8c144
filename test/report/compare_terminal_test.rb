# frozen_string_literal: true

require "test_helper"
require "json"

# The comparison view, rendered from a stored summary of a real run on the demo app.
class CompareTerminalTest < Minitest::Test
  SUMMARY = JSON.parse(File.read(File.expand_path("../fixtures/runs/compare_summary.json", __dir__)))

  def test_one_table_row_per_configuration_with_changes_against_the_baseline
    text = render(SUMMARY)

    assert_match(%r{^  configuration\s+steady memory\s+vs baseline\s+peak\s+req/s}, text)
    assert_match(/^  glibc\s+95\.2 MB \(76\.2 … 113\.6\)\s+—/, text)
    assert_match(/^  glibc-arena2\s+64\.9 MB .*-31\.0% \(-41\.5 … -18\.6\)/, text)
    assert_match(/^  jemalloc\s+93\.5 MB .*no detectable difference/, text)
  end

  def test_a_change_told_from_zero_but_inside_the_noise_band_says_so
    summary = JSON.parse(JSON.generate(SUMMARY))
    jemalloc = summary["configs"].find { |config| config["name"] == "jemalloc" }
    jemalloc["vs_baseline"].merge!("rss_pct" => -0.5, "rss_pct_ci" => [-0.8, -0.2], "significant" => false)

    assert_match(/^  jemalloc\s+93\.5 MB .*not clear of ±1% noise/, render(summary))
  end

  def test_recommendation_with_deploy_snippets
    text = render(SUMMARY)

    assert_match(/Recommendation: glibc-arena2/, text)
    assert_match(/Environment=MALLOC_ARENA_MAX=2/, text)
    assert_match(/mallard doctor PID/, text)
  end

  def test_rows_that_were_not_measured_say_why
    summary = JSON.parse(JSON.generate(SUMMARY))
    summary["configs"] << { "name" => "tcmalloc", "repeats" => 0, "available" => false,
                            "unavailable_reason" => "libtcmalloc_minimal.so.4 not found; install libtcmalloc-minimal4" }
    summary["configs"] << { "name" => "mimalloc", "repeats" => 0, "available" => true, "failed" => "`puma` exited" }

    assert_match(/tcmalloc\s+unavailable: libtcmalloc_minimal\.so\.4 not found; install libtcmalloc-minimal4/,
                 render(summary))
    assert_match(/mimalloc\s+failed: `puma` exited/, render(summary))
  end

  # The app's path and the subject's command are the user's and the subject's text: one line each, inert.
  def test_text_from_outside_is_printed_on_one_line_without_control_characters
    summary = JSON.parse(JSON.generate(SUMMARY))
    summary["target"]["description"] = "/srv/new\nline \\xFF (Puma, 5 threads, 0 workers)"
    summary["run_dir"] = "/runs/\e[2Jcleared"
    summary["configs"] << { "name" => "mimalloc", "repeats" => 0, "failed" => "`ruby -e \e]0;title\a` exited" }
    text = render(summary)

    assert_equal "mallard compare — /srv/new\\x0Aline \\xFF (Puma, 5 threads, 0 workers)\n", text.lines.first
    assert_match(/mimalloc\s+failed: `ruby -e ` exited$/, text)
    assert_includes text, "Run directory: /runs/cleared"
    refute_match(/[\x00-\x08\x0B-\x1F\x7F]/, text)
  end

  def test_no_trailing_spaces
    refute_match(/ +$/, render(SUMMARY))
  end

  private

  def render(summary)
    StringIO.new.tap { |io| Mallard::Report::CompareTerminal.new(summary).render(io) }.string
  end
end
