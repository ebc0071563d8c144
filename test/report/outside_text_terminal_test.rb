# frozen_string_literal: true

require "test_helper"
require "json"

# The soak views and the live progress print the app's path, the run directory and a failure's reason, all
# text from outside: one line each, with no control character a terminal would act on.
class OutsideTextTerminalTest < Minitest::Test
  SOAK = JSON.parse(File.read(File.expand_path("../fixtures/runs/soak-leaky/summary.json", __dir__)))
  CONTROL = /[\x00-\x08\x0B-\x1F\x7F]/
  PATH = "/srv/new\nline \e[2J"

  def test_the_soak_view_puts_the_target_on_its_header_line
    summary = JSON.parse(JSON.generate(SOAK))
    summary["target"]["description"] = "#{PATH} (Puma, 5 threads, 0 workers)"
    summary["run_dir"] = "/runs/\nnext"
    text = print_with { |io| Mallard::Report::SoakTerminal.new(Mallard::Summary::Soak.from_h(summary)).render(io) }

    assert_equal "mallard soak — /srv/new\\x0Aline  (Puma, 5 threads, 0 workers)\n", text.lines.first
    assert_match(%r{^  Run      /runs/\\x0Anext$}, text)
    refute_match CONTROL, text
  end

  def test_the_progress_lines_are_one_line_each
    text = print_with do |io|
      Mallard::Report::Progress.new(io).started(target: PATH, run_dir: "/runs/\xff", duration: 1, load: "wrk")
      progress = Mallard::Report::CompareProgress.new(io)
      progress.run_started(label: "jemalloc", repeat: 1, position: 1, total: 2)
      progress.run_failed(label: "jemalloc", reason: "`ruby \e]0;title\a` exited")
    end

    assert_equal ["mallard: measuring /srv/new\\x0Aline ", "mallard: load from wrk",
                  "mallard: run directory /runs/\\xFF", "[1/2] jemalloc        #1  failed: `ruby ` exited"],
                 text.lines.map(&:chomp)
    refute_match CONTROL, text
  end

  def test_the_diff_view_prints_run_directories_and_targets_inert
    result = { "metric" => "steady_rss_kb", "kind" => "soak", "rows" => [],
               "a" => { "run_dir" => "/runs/a\e[31m", "target" => PATH, "status" => "complete" },
               "b" => { "run_dir" => "/runs/b", "target" => "app", "status" => "complete" } }
    text = print_with { |io| Mallard::Report::DiffTerminal.new(Mallard::Summary::Diff.from_h(result)).render(io) }

    assert_includes text, "  A  /runs/a · /srv/new\\x0Aline  · complete\n"
    refute_match CONTROL, text
  end

  private

  def print_with(&)
    StringIO.new.tap(&).string
  end
end
