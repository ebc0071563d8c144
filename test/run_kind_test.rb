# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# A seventh kind of run, wired in one class: report, --json, --html and diff serve it with no change anywhere
# else, because they dispatch on the kind once (RunKind.open / RunKind.named).
class RunKindTest < Minitest::Test
  include CliRuns
  # A pond survey: ducks.jsonl has one line per duck seen; the summary counts them.
  class Pond < Mallard::RunKind
    Summary = Mallard::Value.define(:kind, :status, :reason, :target, :ducks)
    Run = Struct.new(:path, :meta, :summary, :ducks, keyword_init: true)

    # Reads the raw records; a pond never stores a summary, so it is always summarised again.
    module Reader
      def self.read(directory)
        lines = File.readlines(directory.file("ducks.jsonl"))
        Run.new(path: directory.path, meta: Mallard::Run::Meta.from_h(directory.read_json("meta.json")),
                ducks: lines.map { |line| JSON.parse(line) })
      end
    end

    # One line of text.
    class Terminal
      def initialize(summary, color:)
        @summary = summary
        @color = color
      end

      def render(io) = io.puts("mallard pond — #{@summary.ducks} ducks")
    end

    # One section.
    class Page
      attr_reader :title

      def initialize(summary)
        @title = "mallard pond"
        @summary = summary
      end

      def sections
        [Mallard::Report::Html::Section.new(id: "ducks", title: "Ducks", parts: ["#{@summary.ducks} ducks"])]
      end
    end

    def name = "pond"
    def reader = Reader
    def summarise(run) = Summary.new(kind: name, status: "complete", ducks: run.ducks.size)
    def terminal_view = Terminal
    def html_page(summary, **) = Page.new(summary)
    def diff_metrics = { "ducks" => 1 }
    def diff_figures(summary) = { "ducks" => summary.ducks }
  end

  def setup
    Mallard::RunKind.register(Pond.new)
    @tmp = Dir.mktmpdir("mallard-run-kind-test")
    @a = pond("a", 10)
    @b = pond("b", 12)
  end

  def teardown
    Mallard::RunKind.unregister("pond")
    FileUtils.remove_entry(@tmp)
  end

  def test_report_shows_a_new_kind_in_the_terminal_as_json_and_as_html
    status, out, err = run_cli("report", @a)
    assert_equal 0, status, err
    assert_equal "mallard pond — 10 ducks\n", out
    assert_match(/no summary.json; summarised from its raw files/, err)

    _, out, = run_cli("report", "--json", @a)
    assert_equal({ "kind" => "pond", "status" => "complete", "reason" => nil, "target" => nil, "ducks" => 10 },
                 JSON.parse(out))

    html = File.join(@tmp, "pond.html")
    status, _, err = run_cli("report", "--html", html, @a)
    assert_equal 0, status, err
    assert_includes File.read(html), "<title>mallard pond</title>"
    assert_includes File.read(html), "<p class=\"note\">10 ducks</p>"
  end

  def test_diff_compares_a_new_kind_on_its_own_metric_and_refuses_another
    status, out, err = run_cli("diff", "--json", @a, @b)
    assert_equal 0, status, err
    diff = JSON.parse(out)
    assert_equal %w[pond ducks], diff.values_at("kind", "metric")
    row = diff["rows"].first
    assert_equal [10, 12], row.values_at("a", "b")
    assert_in_delta 20.0, row["pct"], 0.05

    status, _, err = run_cli("diff", "--metric", "geese", @a, @b)
    assert_equal 64, status
    assert_match(/unknown --metric geese for pond runs; one of ducks/, err)
  end

  def test_a_new_kind_diffs_only_against_its_own
    soak = File.expand_path("fixtures/runs/soak-leaky", __dir__)
    status, _, err = run_cli("diff", @a, soak)

    assert_equal 64, status
    assert_match(/is a pond run and .* a soak run/, err)
  end

  private

  def pond(name, ducks)
    dir = File.join(@tmp, name)
    FileUtils.mkdir_p(dir)
    File.write(File.join(dir, "meta.json"), JSON.generate(command: "pond", schema_version: 1))
    File.write(File.join(dir, "ducks.jsonl"), Array.new(ducks) { |i| "#{JSON.generate(duck: i)}\n" }.join)
    dir
  end
end
