# frozen_string_literal: true

require "test_helper"
require "mallard/report/html"
require "fileutils"
require "json"
require "tmpdir"

# The HTML report, rendered from trimmed copies of real run directories (test/fixtures/runs): a leaking
# soak, a soak with two Puma workers, an interrupted soak, and a comparison with its soak runs.
class HtmlTest < Minitest::Test
  RUNS = File.expand_path("../fixtures/runs", __dir__)
  FIXTURES = %w[soak-leaky soak-workers soak-interrupted compare].freeze
  ATTACK = "<script>alert(1)</script>"
  ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"

  def test_a_soak_draws_memory_requests_and_gc_each_with_axis_units_and_a_table
    html = render("soak-leaky")

    assert_equal 4, html.scan("<svg").size
    assert_equal 4, html.scan('<details class="table-view">').size
    ["Memory (MB)", "Throughput (req/s)", "GC runs (runs/s)", "Live slots (thousands)", "Time since start (s)"]
      .each { |axis| assert_includes html, ">#{axis}</text>" }
    assert_includes html, "<title>Memory over time</title>"
    assert_match(/<svg role="img" aria-label="Memory over time: Memory against time since start"/, html)
  end

  def test_requests_per_second_are_the_differences_of_the_cumulative_count
    # samples.jsonl: 0 requests at t=0.317, 1,466 at t=0.819 → 2,920.3 req/s over that interval.
    assert_match(%r{<tr><th scope="row">0\.82</th>\s*<td>2920\.3</td></tr>}, render("soak-leaky"))
  end

  def test_a_soak_states_its_verdict_memory_load_latency_gc_and_metadata
    html = render("soak-leaky")

    assert_match(%r{Memory: <strong>growing</strong> · slope \+10035\.5 KB per 1,000 requests}, html)
    assert_includes html, "<tr><th scope=\"row\">Steady RSS</th><td>122.2 MB</td></tr>"
    assert_includes html, "3342.1 req/s"
    assert_includes html, "<td>137.5 ms</td>" # p99
    assert_match(/wrk reports no latency over\s+time/, html)
    assert_includes html, "31 (27 minor, 4 major)"
    assert_includes html, "mallard soak test/fixtures/apps/leaky --duration 5 --out /runs/soak-leaky"
    assert_includes html, "ruby 3.1.2p20"
  end

  def test_several_processes_get_a_line_each_and_the_warmup_is_shaded
    html = render("soak-workers")

    legend = html.scan(%r{<g class="legend-entry">.*?<text [^>]*>([^<]*)</text></g>}).flatten
    assert_includes legend, "RSS, all 3 processes"
    assert_includes legend, "PSS, all 3 processes"
    assert_equal 3, legend.grep(/\APSS, pid \d+ \((main|child)\)\z/).uniq.size
    assert_includes legend, "warm-up (2.49 s)"
    assert_match(/<rect x="[\d.]+" y="16" width="[\d.]+" height="250" fill="url\(#memory-hatch\)">/, html)
    assert_includes html, "Run longer: about 41,880 requests after warm-up would decide it."
  end

  def test_an_interrupted_soak_says_so_and_why
    html = render("soak-interrupted")

    assert_match(%r{<strong>interrupted</strong>: mallard received SIGTERM}, html)
    assert_equal 4, html.scan("<svg").size
  end

  def test_a_soak_without_summary_still_draws_its_samples_with_a_note
    in_copy_of("soak-leaky") do |dir|
      File.delete(File.join(dir, "summary.json"))
      html = render_path(dir)

      assert_includes html, "No summary.json in this run directory"
      assert_includes html, "<title>Memory over time</title>"
      assert_includes html, "No verdict without summary.json."
    end
  end

  def test_a_comparison_draws_a_line_per_configuration_from_its_runs
    html = render("compare")

    assert_equal 2, html.scan("<svg").size
    assert_equal 2, html.scan('<details class="table-view">').size
    assert_includes html, ">Time since load started (s)</text>"
    assert_includes html, ">RSS (MB)</text>"
    %w[glibc glibc-arena2 jemalloc].each do |config|
      assert_match(%r{<g class="legend-entry">.*?<text [^>]*>#{config}</text></g>}, html)
      assert_includes html, "<th scope=\"row\">#{config} #2</th>" # the second repeat, found by name
    end
    refute_includes html, "not found"
  end

  def test_a_comparison_shows_the_verdict_table_recommendation_and_snippets
    html = render("compare")

    assert_match(%r{<th scope="row">glibc-arena2</th>\s*<td>59\.8 \(50\.6 … 70\.7\)</td>}, html)
    assert_includes html, "<td>-28.8% (-38.1 … -18.0)</td>"
    assert_includes html, "<td>no detectable difference</td>"
    assert_includes html, "<h2>Recommendation: glibc-arena2</h2>"
    assert_match(%r{<h3>systemd</h3>\s*<pre><code>\[Service\]\nEnvironment=MALLOC_ARENA_MAX=2}, html)
    assert_match(/wrk reports no latency over\s+time/, html)
  end

  def test_a_comparison_whose_run_directories_are_gone_says_how_many
    in_copy_of("compare") do |dir|
      FileUtils.rm_rf(File.join(dir, "jemalloc-2"))

      assert_includes render_path(dir), "1 run directory was not found."
    end
  end

  def test_nothing_is_fetched_no_script_no_external_url_outside_text
    FIXTURES.each do |name|
      html = render(name)
      tags = html.scan(/<[^>]*>/)

      assert tags.grep(%r{https?://|src=|href=}i).empty?, "#{name}: #{tags.grep(%r{https?://|src=|href=}i).first}"
      refute_match(/<script|<link|<img|<iframe|@import|url\((?!#)/i, html, name)
      assert_includes html, "default-src 'none'"
    end
  end

  def test_everything_from_the_run_is_escaped_in_a_soak
    in_copy_of("soak-interrupted") do |dir|
      edit_json(dir, "meta.json") do |meta|
        meta["argv"] << ATTACK
        meta["target"]["description"] = ATTACK
        meta["options"]["paths"] = ["/search?q=#{ATTACK}"]
      end
      edit_json(dir, "summary.json") do |summary|
        summary["target"]["description"] = ATTACK
        summary["reason"] = ATTACK
        summary["app"]["flags"] = ["responses #{ATTACK}"]
      end
      assert_escaped render_path(dir), minimum: 6
    end
  end

  def test_everything_from_the_run_is_escaped_in_a_comparison
    in_copy_of("compare") do |dir|
      edit_json(dir, "summary.json") do |summary|
        summary["target"]["description"] = ATTACK
        summary["configs"] << { "name" => ATTACK, "repeats" => 0, "failed" => ATTACK, "output_tail" => [ATTACK] }
        summary["recommendation"]["reason"] = ATTACK
        summary["recommendation"]["snippets"] = { ATTACK => ATTACK }
        summary["rows"][0]["name"] = ATTACK
      end
      assert_escaped render_path(dir), minimum: 8
    end
  end

  def test_ticks_are_on_one_two_five_steps
    scale = Mallard::Report::Html::NiceScale.new(0, 193.1)

    assert_equal [0, 50, 100, 150, 200], scale.ticks
    assert_equal [0.0, 0.1, 0.2, 0.3, 0.4], Mallard::Report::Html::NiceScale.new(0, 0.37).ticks
    assert_equal [0, 2, 4, 6, 8], Mallard::Report::Html::NiceScale.new(0, 7.2).ticks
  end

  def test_write_puts_the_page_in_a_file
    Dir.mktmpdir do |tmp|
      file = Mallard::Report::Html.write(File.join(RUNS, "soak-leaky"), File.join(tmp, "report.html"))

      assert File.read(file).start_with?("<!DOCTYPE html>")
    end
  end

  def test_a_directory_that_is_not_a_run_is_refused
    Dir.mktmpdir do |tmp|
      assert_raises(Mallard::NotFound) { Mallard::Report::Html.new(tmp) }
    end
  end

  private

  def render(name) = render_path(File.join(RUNS, name))

  def render_path(path)
    StringIO.new.tap { |io| Mallard::Report::Html.new(path).render(io) }.string
  end

  def in_copy_of(name)
    Dir.mktmpdir do |tmp|
      FileUtils.cp_r(File.join(RUNS, name), tmp)
      yield File.join(tmp, name)
    end
  end

  def edit_json(dir, file)
    path = File.join(dir, file)
    data = JSON.parse(File.read(path))
    yield data
    File.write(path, JSON.generate(data))
  end

  def assert_escaped(html, minimum:)
    refute_match(/<script/i, html)
    assert_operator html.scan(ESCAPED).size, :>=, minimum
  end
end
