# frozen_string_literal: true

require "test_helper"
require "mallard/report/html"
require "cgi"
require_relative "heap_summaries"

# The HTML report of a heap run, rendered from summaries built here (HeapSummaries): the sites drawn as bars as
# long as their bytes and tabled whole, the generations with the window marked, the dumps with their warning, the
# soak, a diff of dumps one gave (no target, no soak), a run that failed before its third dump, and text from
# outside escaped wherever it lands.
class HtmlHeapTest < Minitest::Test
  include HeapSummaries

  ATTACK = "<script>alert(1)</script>"
  ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
  CHART = Mallard::Report::Html::HeapSitesChart
  # Each site's bar: its width, fill and tooltip.
  BAR = %r{<rect class="site-bar" x="0" y="[\d.]+" width="([\d.]+)" height="\d+" fill="([^"]+)"><title>([^<]*)</title>}
  # Each generation bucket's column: in the window or not, and its height.
  COLUMN = /<rect class="(generation(?: in-window)?)" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)"/

  def test_a_heap_summary_gets_the_heap_page
    html = render

    assert_includes html, "<title>mallard heap — test/fixtures/apps/leaky (Puma, 5 threads, 0 workers)</title>"
    %w[retained sites groups generations dumps soak method metadata].each do |id|
      assert_includes html, %(<section id="#{id}">)
    end
    assert_includes html, "<td>3,000 objects, 3.0 MiB</td>"
    assert_includes html, "<td>generations 11 to 20: allocated after dump A, up to dump B, and still alive in dump " \
                          "C</td>"
    assert_includes html, "<td>a site that retains 256.0 KiB or more is significant</td>"
  end

  def test_bars_are_as_long_as_their_bytes_and_significant_ones_stand_out
    bars = render.scan(BAR)

    assert_equal 2, bars.size
    widths = bars.map { |bar| Float(bar[0]) }
    assert_in_delta CHART::PLOT, widths[0], 0.1, "the largest spans the plot"
    assert_in_delta 524_288.0 / 2_097_152, widths[1] / widths[0], 0.001
    assert_equal([CHART::SIGNIFICANT, CHART::OTHER], bars.map { |bar| bar[1] })
    assert_includes CGI.unescapeHTML(bars[1][2]), HOSTILE_SITE
    assert_includes CGI.unescapeHTML(bars[0][2]), "2,000 objects, 2.0 MiB — significant"
  end

  def test_the_chart_draws_the_top_fifteen_and_the_table_holds_every_site
    sites = (1..20).map do |i|
      heap_site("/app/s#{i}.rb:#{i}", "String", "app", [i, (21 - i) * 1000], significant: i < 3)
    end
    html = render(heap_hash.merge("sites" => sites))
    widths = html.scan(BAR).map { |bar| bar[0].to_f }

    assert_equal CHART::TOP, widths.size
    widths.each_with_index { |width, i| assert_in_delta (20 - i) / 20.0 * CHART::PLOT, width, 0.1 }
    rows = html[%r{<table class="heap-sites">.*?</table>}m].scan(/<tr class="(significant|other)">/).flatten

    assert_equal (%w[significant] * 2) + (%w[other] * 18), rows
    assert_includes html, "<figcaption>The 15 sites that retain the most bytes</figcaption>"
  end

  def test_the_generations_are_drawn_with_the_window_marked_and_tabled
    html = render
    figure = html[%r{<figure class="chart" id="chart-generations">.*?</figure>}m]
    columns = figure.scan(COLUMN)

    assert_equal 30, columns.size
    in_window = columns.each_with_index.select { |(kind, _), _| kind.end_with?("in-window") }.map { |_, i| i + 1 }
    assert_equal (11..20).to_a, in_window
    heights = columns.map { |_, height| height.to_f }
    assert_in_delta heights[29] / 30, heights[0], 0.1, "columns as tall as their bytes"
    assert_includes figure, '<rect class="window"'
    assert_includes figure, "<title>generation 14 (in the window): 140 objects, 56.0 KiB</title>"
    assert_includes figure, "<title>generations up to 1: 10 objects, 4.0 KiB</title>"
    assert_includes figure, ">Alive in dump C (KiB)</text>"
    assert_includes figure, '<details class="table-view">'
  end

  def test_the_dumps_say_they_hold_the_apps_data_and_the_app_is_timed_while_they_are_written
    html = render
    dumps = html[%r{<section id="dumps">.*?</section>}m]

    assert_includes dumps, "These dump files hold the app&#39;s data"
    assert_equal 3, dumps.scan(%r{<th scope="row">[ABC]</th>}).size
    assert_includes dumps, "<code>/runs/heap/heap-100-2.json</code>"
    assert_includes dumps, "7.5 s into the run"
    assert_includes dumps, "<tr><th scope=\"row\">During dumps</th><td>median 2.4 ms, slowest 31.7 ms (41 requests, " \
                           "0 failed)</td></tr>"
    assert_includes dumps, "<tr><th scope=\"row\">Outside dumps</th><td>median 1.9 ms, slowest 12.0 ms"
    assert_includes dumps, "<code>/</code>", "the path mallard requested"
    assert_includes dumps, "15.0 MiB (dump 1.0×)", "dump A's size against the app's RSS"
    method = html[%r{<section id="method">.*?</section>}m]
    assert_includes method, "<td>152 MB/s</td>"
    assert_includes method, "allocation tracing was on"
  end

  def test_the_soak_is_shown_with_its_memory_chart
    soak = render[%r{<section id="soak">.*?</section>}m]

    assert_includes soak, '<figure class="chart" id="chart-memory">'
    assert_includes soak, "<tr><th scope=\"row\">Memory</th><td>growing</td></tr>"
    assert_includes soak, "3342.1 req/s"
  end

  def test_a_diff_has_no_target_soak_or_run_directory
    hash = heap_hash.merge("soak" => nil, "target" => nil, "latency" => nil)
    hash["dumps"].each { |dump| dump.merge!("taken_at" => nil, "dump_s" => nil) }
    hash["dumps"][0]["path"] = "/tmp/dump-\xFF.json".b # a path given on the command line: any bytes
    html = render(hash, meta: Mallard::Run::Meta.new)

    assert_includes html, "<h1>mallard heap — heap dumps</h1>"
    assert_includes html, "Dumps given to mallard heap diff"
    refute_includes html, '<section id="soak">'
    refute_includes html, '<section id="metadata">'
    refute_includes html, "Run directory:"
    refute_includes html, "The app while the dumps were written"
    assert_equal 2, html.scan("<svg").size, "sites and generations"
    assert_includes html, "<code>/tmp/dump-\\xFF.json</code>"
    assert html.valid_encoding?
  end

  def test_a_failed_run_says_why_and_shows_no_retention
    reason = "2 of the 3 dumps were written (the run ended before dump C was written)"
    hash = heap_hash.merge("status" => "failed", "cause" => "no_dumps", "shortfall" => { "written" => 2 },
                           "window" => nil,
                           "sites" => [], "gems" => [], "classes" => [], "generations" => [], "dumps" => [],
                           "analysis" => nil, "methodology" => nil, "retained_count" => nil, "retained_bytes" => nil,
                           "significant_bytes" => nil)
    html = render(hash)

    assert_includes html, "Status: <strong>failed</strong>: #{reason}"
    assert_includes html, "A failed measurement: no retention to show."
    %w[retained sites groups generations dumps].each { |id| refute_includes html, %(<section id="#{id}">) }
    assert_includes html, '<section id="soak">'
    assert_includes html, '<section id="method">'
  end

  def test_everything_from_the_app_and_the_run_is_escaped
    html = render(hostile(heap_hash))
    tags = html.scan(/<[^>]*>/)

    refute_match(/<script/i, html)
    assert_operator html.scan(ESCAPED).size, :>=, 18
    assert_includes html, "/app/&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;.rb:7"
    refute_includes html, %(alert("x"))
    assert tags.grep(%r{https?://|src=|href=}i).empty?, tags.grep(%r{https?://|src=|href=}i).first
  end

  private

  def render(hash = heap_hash, meta: stored_meta("soak-leaky"))
    StringIO.new.tap { |io| Mallard::Report::Html.new(heap_summary(hash), meta: meta).render(io) }.string
  end

  # Every name, path and reason in the summary replaced by markup.
  def hostile(hash)
    hash.merge!("status" => "interrupted", "reason" => ATTACK, "methodology" => ATTACK, "tracing" => ATTACK,
                "target" => { "kind" => "rack", "description" => ATTACK })
    hash["sites"].first.merge!("class" => ATTACK, "gem" => ATTACK)
    (hash["gems"] + hash["classes"]).each { |group| group["name"] = ATTACK }
    hash["dumps"].each { |dump| dump.merge!("path" => ATTACK, "taken_at" => ATTACK) }
    hash
  end
end
