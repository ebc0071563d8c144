# frozen_string_literal: true

require "test_helper"
require "mallard/report/html"
require "tmpdir"
require_relative "stored_summaries"
require_relative "role_summaries"

# The HTML report, rendered from the summaries of trimmed copies of real runs (test/fixtures/runs): a leaking
# soak, a soak with two Puma workers, an interrupted soak, and a comparison, each with its meta.json. The
# charts draw the series they are given.
class HtmlTest < Minitest::Test
  include StoredSummaries
  include RoleSummaries

  ATTACK = "<script>alert(1)</script>"
  ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
  SOAKS = %w[soak-leaky soak-workers soak-interrupted].freeze

  def test_a_soak_draws_memory_requests_and_gc_each_with_axis_units_and_a_table
    html = render_soak("soak-leaky")

    assert_equal 4, html.scan("<svg").size
    assert_equal 4, html.scan('<details class="table-view">').size
    # memory and live slots on axes spanning their data, which say so; rates from 0
    ["Memory (MiB), axis not from 0", "Throughput (req/s)", "GC runs (runs/s)", "Slots (thousands), axis not from 0",
     "Time since start (s)"].each { |axis| assert_includes html, ">#{axis}</text>" }
    assert_includes html, '<text x="66" y="270.0" text-anchor="end">90</text>', "the memory axis starts near its data"
    assert_includes html, "<title>Memory over time</title>"
    assert_match(/<svg role="img" aria-label="Memory over time: Memory against time since start"/, html)
    refute_match(/\bMB\b/, html)
  end

  # A job backend's tree by role: a line a role over the run's time, and a row a role with its verdict and ledger.
  def test_a_soak_with_roles_draws_each_roles_pss_and_tables_them
    summary = soak_summary("soak-workers", series: soak_series).with(roles: roles)
    html = render(summary, meta: stored_meta("soak-workers"))
    section = html[%r{<section id="roles">.*?</section>}m]

    assert section, "a section for the roles"
    assert_includes section, "<title>PSS per role over time</title>"
    assert_includes section, ">PSS (MiB)</text>"
    assert_equal %w[supervisor dispatcher scheduler worker], section.scan(%r{<th scope="row">(\w+)</th>}).flatten
    assert_includes section, "<td>12,345</td>", "the jobs the workers ran"
    refute_includes render_soak("soak-workers"), '<section id="roles">', "a web app's soak has no roles"
  end

  def test_a_chart_tables_the_points_of_its_series_as_given
    series = soak_series(rps: [[0.819, 2920.3], [1.321, 3102.5]])
    html = render(soak_summary("soak-leaky", series: series), meta: stored_meta("soak-leaky"))

    assert_match(%r{<tr><th scope="row">0\.82</th>\s*<td>2920\.3</td></tr>}, html)
    assert_match(%r{<tr><th scope="row">1\.32</th>\s*<td>3102\.5</td></tr>}, html)
    assert_match(%r{<th scope="col">RSS \(MiB\)</th>}, html)
  end

  def test_a_series_that_was_not_measured_is_not_drawn_as_zeros
    series = soak_series(rps: nil, gc_minor_per_s: nil, gc_major_per_s: nil, live_slots: nil)
    html = render(soak_summary("soak-leaky", series: series), meta: stored_meta("soak-leaky"))
    rps = html[%r{<figure class="chart" id="chart-rps">.*?</figure>}m]

    assert_includes rps, "Not measured: no agent inside the subject."
    refute_includes rps, "<svg"
    refute_includes rps, "<table"
    assert_equal 1, html.scan("<svg").size, "only memory was measured"
    # GC runs, the live heap, and GC time (a summary stored before GC time was kept has no such series)
    assert_equal 4, html.scan("Not measured: no agent inside the subject.").size
  end

  def test_a_soak_states_its_verdict_memory_load_latency_gc_and_metadata
    html = render_soak("soak-leaky")

    assert_match(%r{Memory: <strong>growing</strong> · slope \+10035\.5 KiB per 1,000 requests}, html)
    assert_includes html, "tolerance 1.2 MiB"
    assert_includes html, "<tr><th scope=\"row\">Steady RSS</th><td>122.2 MiB</td></tr>"
    assert_includes html, "3342.1 req/s"
    assert_includes html, "<td>137.5 ms</td>" # p99
    assert_match(/wrk reports no latency over\s+time/, html)
    assert_includes html, "31 runs (27 minor, 4 major)"
    assert_includes html, "mallard soak test/fixtures/apps/leaky --duration 5 --out /runs/soak-leaky"
    assert_includes html, "ruby 3.1.2p20"
  end

  def test_several_processes_get_a_line_each_and_the_warmup_is_shaded
    series = soak_series(start: 0.878, processes: 3, warmup: [0.878, 3.368])
    html = render(soak_summary("soak-workers", series: series), meta: stored_meta("soak-workers"))

    legend = html.scan(%r{<g class="legend-entry">.*?<text [^>]*>([^<]*)</text></g>}).flatten
    assert_includes legend, "RSS, all 3 processes"
    assert_includes legend, "PSS, all 3 processes"
    assert_equal 3, legend.grep(/\APSS, pid \d+ \((main|child)\)\z/).uniq.size
    assert_includes legend, "warm-up (2.49 s)"
    assert_match(/<rect x="[\d.]+" y="16" width="[\d.]+" height="250" fill="url\(#memory-hatch\)">/, html)
    assert_includes html, "Memory: run longer: about 41,880 requests after warm-up would decide it."
  end

  def test_an_interrupted_soak_says_so_and_why
    html = render_soak("soak-interrupted")

    assert_match(%r{"status status-interrupted">\s*Status: <strong>interrupted</strong>: mallard received SIGTERM},
                 html)
    assert_equal 4, html.scan("<svg").size
  end

  # A run killed before it wrote summary.json is summarised from its raw files, and still says it never ended.
  def test_a_run_that_never_said_it_ended_shows_its_figures_and_says_so
    html = render(soak_summary("soak-leaky", status: "running", series: soak_series), meta: stored_meta("soak-leaky"))

    assert_includes html, "<strong>running</strong>"
    assert_includes html, "The run never said it ended"
    assert_match(%r{Memory: <strong>growing</strong>}, html)
    assert_equal 4, html.scan("<svg").size
  end

  def test_a_failed_measurement_has_no_verdict_and_says_why
    reason = "45.0% of requests failed (900 of 2000; the limit is 1%, --max-errors): a failed measurement, not a result"
    summary = soak_summary("soak-leaky", status: "failed", cause: "errors", reason: reason, verdict: nil,
                                         series: soak_series)
    html = render(summary, meta: stored_meta("soak-leaky"))

    assert_includes html, "class=\"status status-failed\""
    assert_includes html, "Failed measurement: 45.0% of requests failed"
    assert_includes html, "No verdict."
    refute_includes html, "Memory: <strong>"
  end

  def test_a_run_that_is_no_valid_measurement_says_why
    problem = "load did not reach every worker: requests per process [5000, 12] (1 served under 25% of an even share)"
    summary = soak_summary("soak-workers", validity: { "problems" => [problem] }, series: soak_series)

    assert_includes render(summary, meta: stored_meta("soak-workers")), "Not a valid measurement: #{problem}"
  end

  def test_a_comparison_draws_a_line_per_configuration_from_its_soaks
    html = render_compare

    assert_equal 2, html.scan("<svg").size
    assert_equal 2, html.scan('<details class="table-view">').size
    assert_includes html, ">Time since load started (s)</text>"
    assert_includes html, ">RSS (MiB), axis not from 0</text>"
    %w[glibc glibc-arena2 jemalloc].each do |config|
      assert_match(%r{<g class="legend-entry">.*?<text [^>]*>#{config}</text></g>}, html)
      assert_match(%r{<th scope="col">#{config} #2 \(MiB\)</th>}, html) # the second repeat, thin and tabled
    end
    refute_includes html, "not found"
  end

  def test_a_comparison_shows_the_verdict_table_recommendation_and_snippets
    html = render_compare

    assert_match(%r{<th scope="row">glibc-arena2</th>\s*<td>59\.8 MiB \(50\.6 … 70\.7\)</td>}, html)
    assert_includes html, "<td>-28.8% (-38.1 … -18.0)</td>"
    assert_includes html, "<td>no detectable difference</td>"
    assert_includes html, "<td>97.7 MiB</td>" # glibc's peak
    assert_includes html, "<h2>Recommendation: glibc-arena2</h2>"
    assert_match(%r{<h3>systemd</h3>\s*<pre><code>\[Service\]\nEnvironment=MALLOC_ARENA_MAX=2}, html)
    assert_match(/wrk reports no latency over\s+time/, html)
  end

  def test_a_comparison_shows_leak_verdicts_runs_not_counted_and_changes_without_interval
    summary = compare_summary do |hash|
      glibc, arena = hash["configs"].values_at(0, 1)
      glibc.merge!("verdicts" => %w[plateaued growing plateaued], "invalid_runs" => 1)
      arena["vs_baseline"].merge!("rss_pct" => -17.8, "rss_pct_ci" => nil, "significant" => false,
                                  "rss_finding" => "no_interval", "note" => "no interval: one run each")
      hash["rows"][0]["invalid_runs"] = [{ "problems" => ["the machine was busy with other work"] }]
    end
    html = render(summary, meta: stored_meta("compare"), soaks: compare_soaks)

    assert_includes html, "<td>plateaued ×2, growing ×1</td>"
    assert_match(/<p class="note warning">glibc: 1 run not counted: the machine was busy with other work/, html)
    assert_includes html, "<td>-17.8% (no interval: one run each)</td>"
  end

  def test_a_failed_comparison_recommends_nothing_and_says_why
    summary = compare_summary do |hash|
      hash.merge!("status" => "failed", "cause" => "no_valid_runs", "recommendation" => nil,
                  "reason" => "no configuration has a valid run: nothing was measured")
    end
    html = render(summary, meta: stored_meta("compare"), soaks: compare_soaks)

    assert_includes html, "<h2>No recommendation</h2>"
    assert_includes html, "<p class=\"warning\">no configuration has a valid run: nothing was measured</p>"
    refute_includes html, "<h3>systemd</h3>"
  end

  def test_a_comparison_whose_soaks_are_missing_says_how_many
    soaks = compare_soaks
    soaks["jemalloc"].pop

    assert_includes render(compare_summary, meta: stored_meta("compare"), soaks: soaks),
                    "1 run directory was not found."
  end

  def test_nothing_is_fetched_no_script_no_external_url_outside_text
    (SOAKS.map { |name| render_soak(name) } + [render_compare]).each do |html|
      tags = html.scan(/<[^>]*>/)

      assert tags.grep(%r{https?://|src=|href=}i).empty?, tags.grep(%r{https?://|src=|href=}i).first
      refute_match(/<script|<link|<img|<iframe|@import|url\((?!#)/i, html)
      assert_includes html, "default-src 'none'"
    end
  end

  def test_everything_from_the_run_is_escaped_in_a_soak
    meta = stored("soak-interrupted/meta.json")
    meta["argv"] << ATTACK
    meta["target"]["description"] = ATTACK
    meta["options"]["paths"] = ["/search?q=#{ATTACK}"]
    summary = stored("soak-interrupted/summary.json")
    summary["target"]["description"] = ATTACK
    summary["reason"] = ATTACK
    summary["app"]["flags"] = ["responses #{ATTACK}"]
    html = render(Mallard::Summary::Soak.from_h(summary.merge("series" => soak_series)),
                  meta: Mallard::Run::Meta.from_h(meta))

    assert_escaped html, minimum: 6
  end

  def test_everything_from_the_run_is_escaped_in_a_comparison
    summary = compare_summary do |hash|
      hash["target"]["description"] = ATTACK
      hash["configs"] << { "name" => ATTACK, "repeats" => 0, "failed" => ATTACK, "output_tail" => [ATTACK] }
      hash["recommendation"].merge!("name" => ATTACK, "reason" => ATTACK,
                                    "rejected" => [{ "name" => ATTACK, "why" => ATTACK }])
    end
    soaks = compare_soaks.merge(ATTACK => [soak_summary("soak-leaky", series: soak_series)])

    assert_escaped render(summary, meta: stored_meta("compare"), soaks: soaks), minimum: 8
  end

  def test_without_meta_json_the_metadata_says_so
    html = render(soak_summary("soak-leaky", series: soak_series), meta: Mallard::Run::Meta.new)

    assert_includes html, "No meta.json in this run directory."
    assert_includes html, "<h1>mallard soak — test/fixtures/apps/leaky (Puma, 5 threads, 0 workers)</h1>"
  end

  def test_ticks_are_on_one_two_five_steps
    scale = Mallard::Report::Html::NiceScale.new(0, 193.1)

    assert_equal [0, 50, 100, 150, 200], scale.ticks
    assert_equal [0.0, 0.1, 0.2, 0.3, 0.4], Mallard::Report::Html::NiceScale.new(0, 0.37).ticks
    assert_equal [0, 2, 4, 6, 8], Mallard::Report::Html::NiceScale.new(0, 7.2).ticks
  end

  def test_write_puts_the_page_in_a_file
    Dir.mktmpdir do |tmp|
      file = Mallard::Report::Html.write(File.join(tmp, "report.html"), soak_summary("soak-leaky"),
                                         meta: stored_meta("soak-leaky"))

      assert File.read(file).start_with?("<!DOCTYPE html>")
    end
  end

  private

  def render(summary, meta:, soaks: {})
    StringIO.new.tap { |io| Mallard::Report::Html.new(summary, meta: meta, soaks: soaks).render(io) }.string
  end

  def render_soak(name)
    render(soak_summary(name, series: soak_series), meta: stored_meta(name))
  end

  # The stored comparison as a current one reads: its non-significant changes' intervals all span zero.
  def render_compare
    render(compare_summary { |hash| no_difference(hash) }, meta: stored_meta("compare"), soaks: compare_soaks)
  end

  def no_difference(hash)
    hash["configs"].filter_map { |config| config["vs_baseline"] }.each do |vs|
      vs["rss_finding"] = vs["significant"] ? "different" : "no_difference"
      vs["rps_finding"] = vs["rps_significant"] ? "different" : "no_difference"
    end
  end

  # Two soaks per configuration, each on its own clock.
  def compare_soaks
    %w[glibc glibc-arena2 jemalloc].each_with_index.to_h do |name, i|
      [name, [0, 1].map { |repeat| soak_summary("soak-leaky", series: soak_series(start: 0.3 + (i * 0.1) + repeat)) }]
    end
  end

  def assert_escaped(html, minimum:)
    refute_match(/<script/i, html)
    assert_operator html.scan(ESCAPED).size, :>=, minimum
  end
end
