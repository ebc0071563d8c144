# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# The committed budget file (Run::BudgetFile): read and checked before anything starts, a fresh one per path, and
# rewritten whole with the baselines measured, keeping each figure's allowance.
class BudgetFileTest < Minitest::Test
  File_ = Mallard::Run::BudgetFile
  NAMES = Mallard::Analysis::BudgetFigures::NAMES

  def setup
    @dir = Dir.mktmpdir("mallard-budget-file")
    @path = File.join(@dir, File_::NAME)
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_a_fresh_budget_has_an_entry_per_path_and_no_baselines
    budget = File_.fresh(["/", "/rows"], 5.0, NAMES)

    assert_equal([["/", ["/"]], ["/rows", ["/rows"]]], budget.entries.map { |entry| [entry.name, entry.paths] })
    assert(budget.entries.all? { |entry| entry.figures.values.all? { |guard| guard["baseline"].empty? } })
  end

  def test_each_figure_has_its_own_allowance_unless_one_is_given
    mine = File_.fresh(["/"], nil, NAMES).entries.first.figures
    given = File_.fresh(["/"], 3.0, NAMES).entries.first.figures

    assert_equal([10.0, 5.0, 5.0], NAMES.map { |name| mine[name]["max_increase_pct"] })
    assert_equal([3.0] * 3, NAMES.map { |name| given[name]["max_increase_pct"] })
  end

  def test_written_with_baselines_it_reads_back_keeping_each_allowance
    figures = { "steady_pss_kb" => {}, "allocations_per_request" => { "baseline" => [38] },
                "live_slots" => { "max_increase_pct" => 2.5 } }
    budget = File_.from_h("entries" => [{ "name" => "/", "figures" => figures }])
    budget.with_baselines("/" => { "steady_pss_kb" => [3, 4, 5], "live_slots" => [9, 9] }).write(@path)
    read = File_.read(@path).entries.first.figures

    assert_equal({ "max_increase_pct" => 10.0, "baseline" => [3, 4, 5] }, read["steady_pss_kb"], "its own default")
    assert_equal({ "max_increase_pct" => 2.5, "baseline" => [9, 9] }, read["live_slots"])
    assert_equal [38], read["allocations_per_request"]["baseline"], "a figure not measured keeps its baseline"
    assert_equal ["/"], File_.read(@path).entries.first.paths, "an entry without paths loads its name"
  end

  def test_a_bad_file_is_a_usage_error_naming_it
    {
      "{" => /is not JSON/,
      "{}" => /has no entries list/,
      '{"entries":[{"paths":["/"]}]}' => /an entry without a name/,
      '{"entries":[{"name":"/","paths":["rows"],"figures":{"live_slots":{}}}]}' => /paths must be a list of paths/,
      '{"entries":[{"name":"/","figures":{}}]}' => /has no figures/,
      '{"entries":[{"name":"/","figures":{"live_slots":{"max_increase_pct":0}}}]}' => /must be a positive number/,
      '{"entries":[{"name":"/","figures":{"live_slots":{"baseline":[1,-2]}}}]}' => /baseline must be a list of pos/
    }.each do |text, message|
      File.write(@path, text)
      error = assert_raises(Mallard::UsageError, text) { File_.read(@path) }
      assert_match message, error.message
      assert_includes error.message, @path
    end
  end

  def test_a_missing_file_says_how_to_make_one
    error = assert_raises(Mallard::UsageError) { File_.read(@path) }

    assert_match(/make one with --update/, error.message)
  end
end
