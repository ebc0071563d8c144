# frozen_string_literal: true

require "test_helper"
require "mallard/report/html"
require "fileutils"
require "json"
require "tmpdir"
require_relative "heap_summaries"
require_relative "../support/png_pixels"

# The HTML report in a real browser: Debian's headless Chromium opens each fixture's report from a
# file:// URL, written as `mallard report --html` writes it (the run read, then summarised with its series), and
# a heap run's report from a summary built by HeapSummaries (there is no stored heap run).
# It must load with no console message (the page has no script, so any message is an error: a CSP
# violation, a failed load) and make no network request, and its screenshot must show text and its first chart. The
# screenshots and pages are left in test/artifacts/ for a person to look at.
#
# "No network request" is read from Chromium's own NetLog (--log-net-log): every URL request the
# network stack starts is in it, whether or not it could have succeeded; host resolution is also
# mapped to nowhere, so nothing leaves the machine either way. Chromium's own background requests
# (component updates, time checks) are started by the browser, not a page, and carry the initiator
# "not an origin"; the control test proves that a page's request is still caught.
class HtmlBrowserTest < Minitest::Test
  include HeapSummaries

  CHROMIUM = "/usr/bin/chromium"
  RUNS = File.expand_path("../fixtures/runs", __dir__)
  ARTIFACTS = File.expand_path("../artifacts", __dir__)
  # memory, req/s, GC time, live slots, GC runs; a comparison's memory and req/s; a boot's parts and require tree;
  # a heap run's sites, generations and its soak's memory
  CHARTS = { "soak-leaky" => 5, "soak-workers" => 5, "soak-interrupted" => 5, "compare" => 2, "boot" => 2,
             "heap" => 3 }.freeze
  FLAGS = %w[--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
             --disable-component-update --disable-sync --hide-scrollbars].freeze
  TIMEOUT = 60
  INK = "#1d1d1f" # Style's --ink
  # The colour the first chart of each page draws with (its first series, or a part of the boot's bar, or the
  # heap's significant sites), and the fewest pixels of it that a drawn chart has at half scale (measured: 295-408
  # for a soak, 150 for a comparison, whose chart starts lower, 1,336 for the boot's bar, 8,813 for the heap's).
  FIRST_CHART = { "soak-leaky" => ["#0072b2", 100], "soak-workers" => ["#0072b2", 100],
                  "soak-interrupted" => ["#0072b2", 100], "compare" => ["#0072b2", 60],
                  "boot" => ["#9ecae1", 600], "heap" => ["#d55e00", 1_000] }.freeze

  Run = Struct.new(:stdout, :stderr, :netlog, keyword_init: true)

  def setup
    super
    skip "Chromium is not installed at #{CHROMIUM} (apt-get install chromium)" unless File.executable?(CHROMIUM)
    FileUtils.mkdir_p(ARTIFACTS)
  end

  CHARTS.each do |name, charts|
    define_method("test_#{name.tr('-', '_')}_loads_offline_with_its_charts_and_no_errors_or_requests") do
      run = chromium("--dump-dom", "--enable-logging=stderr", "--v=0", page_url(name))

      assert_equal charts, run.stdout.scan("<svg").size, "charts in the DOM Chromium built"
      assert_equal charts, run.stdout.scan('<figure class="chart"').size
      assert_includes run.stdout, "</footer>"
      assert_empty console_messages(run.stderr)
      assert_empty page_requests(run.netlog)
    end

    # What the top of the page shows, in pixels: text in the page's ink, and the first chart's own colour drawn
    # over enough of its area to be a line, markers or bars (a chart that failed to draw leaves only white).
    # Rendered at half scale, so the screenshot is quick to read back.
    define_method("test_#{name.tr('-', '_')}_screenshot_shows_text_and_its_first_chart") do
      png = File.join(ARTIFACTS, "html-#{name}.png")
      FileUtils.rm_f(png)
      chromium("--screenshot=#{png}", "--window-size=1280,2400", "--force-device-scale-factor=0.5", page_url(name))
      image = PngPixels.new(png)
      colours = image.colours

      assert_equal [640, 1200], [image.width, image.height]
      assert_operator colours[INK], :>, 2_000, "text in the page's ink"
      colour, pixels = FIRST_CHART.fetch(name)
      assert_operator colours[colour], :>, pixels, "the first chart's #{colour}"
    end
  end

  # The checks above must be able to fail: a page that logs an error and fetches an image is caught.
  def test_the_checks_catch_a_console_error_and_a_request
    page = File.join(ARTIFACTS, "html-control.html")
    File.write(page, '<!DOCTYPE html><title>control</title><img src="http://example.invalid/x.png">' \
                     '<script>console.error("control error")</script>')
    run = chromium("--dump-dom", "--enable-logging=stderr", "--v=0", "file://#{page}")

    assert(console_messages(run.stderr).any? { |line| line.include?("control error") })
    assert_includes page_requests(run.netlog), "http://example.invalid/x.png"
  end

  private

  def page_url(name)
    page = File.join(ARTIFACTS, "html-#{name}.html")
    if name == "heap" # no stored heap run: its summary is built (HeapSummaries)
      Mallard::Report::Html.write(page, heap_summary, meta: stored_meta("soak-leaky"))
      return "file://#{page}"
    end

    run = Mallard::RunKind.open(File.join(RUNS, name)).run
    analysis = Mallard::Analysis
    case run
    when Mallard::Run::CompareRun
      Mallard::Report::Html.write(page, analysis::CompareSummary.for(run), meta: run.meta,
                                                                           soaks: analysis::CompareSummary.soaks(run))
    when Mallard::Run::BootRun
      Mallard::Report::Html.write(page, run.summary || analysis::BootSummary.call(run), meta: run.meta)
    else
      Mallard::Report::Html.write(page, analysis::SoakSummary.for(run), meta: run.meta)
    end
    "file://#{page}"
  end

  # Runs Chromium to completion in a scratch HOME (its crash handler keeps its database there, which
  # also names that handler as ours), then makes sure none of its processes outlives the run.
  def chromium(*args)
    Dir.mktmpdir("mallard-chromium") do |dir|
      netlog = File.join(dir, "netlog.json")
      pid = spawn_chromium(dir, ["--user-data-dir=#{File.join(dir, 'profile')}", "--log-net-log=#{netlog}",
                                 "--host-resolver-rules=MAP * ~NOTFOUND", *args])
      begin
        Timeout.timeout(TIMEOUT) { Process.wait(pid) }
      ensure
        stop(pid, dir)
      end
      Run.new(stdout: File.read(File.join(dir, "stdout")), stderr: File.read(File.join(dir, "stderr")),
              netlog: File.exist?(netlog) ? File.read(netlog) : "")
    end
  end

  def spawn_chromium(dir, args)
    env = { "HOME" => dir, "XDG_CONFIG_HOME" => File.join(dir, "config"), "XDG_CACHE_HOME" => File.join(dir, "cache") }
    Process.spawn(env, CHROMIUM, *FLAGS, *args, out: File.join(dir, "stdout"), err: File.join(dir, "stderr"),
                                                pgroup: true, unsetenv_others: false)
  end

  # Kills what is left of the process group, reaps the browser if it is still ours to reap, and gives
  # the crash handlers (which leave the group) a moment to follow the browser out before killing them.
  def stop(pid, dir)
    signal(-pid)
    begin
      Process.wait(pid)
    rescue Errno::ECHILD
      nil
    end
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
    sleep 0.1 until ours(pid, dir).empty? || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    ours(pid, dir).each { |leftover| signal(leftover) }
    assert_empty ours(pid, dir), "Chromium processes left behind"
  end

  def signal(target)
    Process.kill("KILL", target)
  rescue Errno::ESRCH, Errno::EPERM
    nil
  end

  # Live processes in the browser's group, or whose command line names this run's scratch directory.
  # Zombies are dead already: the browser's children are re-parented to PID 1, which reaps them in
  # its own time.
  def ours(pgid, dir)
    Dir.glob("/proc/[0-9]*").filter_map do |proc_dir|
      state, _ppid, group = File.read(File.join(proc_dir, "stat")).split(") ").last.split
      next if state == "Z"

      pid = Integer(File.basename(proc_dir))
      pid if Integer(group) == pgid || File.read(File.join(proc_dir, "cmdline")).include?(dir)
    rescue SystemCallError
      nil
    end
  end

  # With --enable-logging=stderr, everything a page writes to its console is logged as CONSOLE.
  def console_messages(stderr)
    stderr.lines.grep(/:CONSOLE[:(]/)
  end

  # URLs of the requests a page started, from the NetLog; the browser's own carry no origin.
  def page_requests(netlog)
    log = JSON.parse(netlog)
    start_job = log.dig("constants", "logEventTypes", "URL_REQUEST_START_JOB")
    log["events"].filter_map do |event|
      params = event["params"] || {}
      params["url"] if event["type"] == start_job && params["url"] && params["initiator"] != "not an origin"
    end.uniq
  end
end
