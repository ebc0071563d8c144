# frozen_string_literal: true

require "test_helper"
require "json"
require "rbconfig"
require "tmpdir"
require_relative "../report/heap_summaries"

# --html on heap runs, driven in-process: `mallard report` on a heap run directory (the stored leaky soak, made
# into a heap run by a heap summary beside its own), and `mallard heap diff` on three dumps a Ruby takes of itself.
# Both get the heap page.
class ReportHeapHtmlTest < Minitest::Test
  include CliRuns
  include HeapSummaries

  def setup
    @tmp = Dir.mktmpdir("mallard-report-heap-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_report_writes_a_heap_runs_page
    run = heap_run
    file = File.join(@tmp, "heap.html")
    status, _out, err = run_cli("report", run, "--html", file)
    html = File.read(file)

    assert_equal 0, status, err
    assert_includes html, "<h1>mallard heap — test/fixtures/apps/leaky (Puma, 5 threads, 0 workers)</h1>"
    assert_equal 2, html.scan('<rect class="site-bar"').size
    assert_includes html, '<figure class="chart" id="chart-memory">'
    assert_equal "mallard: HTML report written to #{file}\n", err
  end

  def test_heap_diff_writes_the_page_of_the_dumps_it_was_given
    dumps = take_dumps
    file = File.join(@tmp, "diff.html")
    status, _out, err = run_cli("heap", "diff", "--html", file, *dumps)
    html = File.read(file)

    assert_equal 0, status, err
    assert_includes html, "<h1>mallard heap — heap dumps</h1>"
    assert_match(%r{<td><code>[^<]*/keep\.rb:7</code>}, html, "the strings kept between A and B (and what holds them)")
    dumps.each { |dump| assert_includes html, "<code>#{dump}</code>" }
    refute_includes html, '<section id="soak">'
  end

  private

  # The stored soak's directory as `mallard heap` leaves one: meta.json's command heap, the soak's summary in
  # soak_summary.json, the heap summary in summary.json.
  def heap_run
    run = File.join(@tmp, "run")
    FileUtils.cp_r(File.join(StoredSummaries::RUNS, "soak-leaky"), run)
    meta = JSON.parse(File.read(File.join(run, "meta.json"))).merge("command" => "heap")
    File.write(File.join(run, "meta.json"), JSON.generate(meta))
    File.rename(File.join(run, "summary.json"), File.join(run, "soak_summary.json"))
    File.write(File.join(run, "summary.json"), JSON.generate(heap_summary.to_h))
    run
  end

  # Three dumps of a Ruby with allocation tracing on, keeping strings between each.
  def take_dumps
    script = File.join(@tmp, "keep.rb")
    File.write(script, <<~RUBY)
      require "objspace"
      ObjectSpace.trace_object_allocations_start
      kept = []
      %w[a b c].each do |name|
        GC.start
        File.open(File.join(#{@tmp.inspect}, "\#{name}.json"), "w") { |file| ObjectSpace.dump_all(output: file) }
        2000.times { |i| kept << ("kept \#{i}" * 8) }
      end
    RUBY
    _out, err, status = Open3.capture3(RbConfig.ruby, script)
    assert status.success?, err
    %w[a b c].map { |name| File.join(@tmp, "#{name}.json") }
  end
end
