# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# `mallard budget` end to end on the budgeted fixture (issue 44): --update keeps three repeats of each figure as the
# baseline; the same build against it passes (an A/A of two identical builds); the build with a cache that keeps
# objects from every request (MALLARD_FIXTURE_CACHE=1) fails it, exit 1, saying which figures rose, by how much with
# their interval, how to look and how to accept it; and the file is rewritten only by --update.
class BudgetIntegrationTest < Minitest::Test
  include Processes

  FIXTURE = File.expand_path("../fixtures/apps/budgeted", __dir__)
  FIGURES = Mallard::Analysis::BudgetFigures::NAMES
  TIME_LIMIT = 90

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-budget-test")
    @app = File.join(@tmp, "app")
    FileUtils.cp_r(FIXTURE, @app)
    @file = File.join(@app, Mallard::Run::BudgetFile::NAME)
    @tag = new_tag("budget")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_an_aa_passes_and_a_cache_kept_per_request_fails_with_what_to_do
    baselines = assert_baselines_kept
    aa = budget("aa", "--json")
    assert_equal "within", aa["verdict"], "an A/A failed: #{aa['entries']}"
    assert(aa["entries"].first["figures"].all? { |figure| figure["change"]["ci"] }, "every figure has an interval")

    assert_cache_fails
    assert_equal baselines, JSON.parse(File.read(@file))["entries"].first["figures"], "only --update writes it"
    wait_for(message: "the app outlived its budget") { processes_left_by_mallard(@tag).empty? }
  end

  private

  # @return [Hash] the figures the file keeps after --update: three repeats of each
  def assert_baselines_kept
    assert_equal "updated", budget("baseline", "--update", "--json")["verdict"]
    baselines = JSON.parse(File.read(@file))["entries"].first["figures"]
    assert_equal(FIGURES.map { |name| [name, 3] }, baselines.map { |name, guard| [name, guard["baseline"].size] })
    baselines
  end

  def assert_cache_fails
    out, err, status = run_budget("cached", env: { "MALLARD_FIXTURE_CACHE" => "1" })

    assert_equal 1, status.exitstatus, err
    assert_match(%r{Over budget: steady memory \(summed PSS\) of / rose \+\d+\.\d% \(\+\d+\.\d … \+\d+\.\d\)}, out)
    assert_includes out, "mallard heap #{@app} --path /"
    assert_includes out, "mallard budget #{@app} --update`, then commit #{@file}"
    stored = report("cached")
    over = stored["entries"].first["figures"].select { |figure| figure["verdict"] == "over" }
    assert_includes over.map { |figure| figure["name"] }, "steady_pss_kb"
    assert(over.all? { |figure| figure["change"]["ci"].first > figure["max_increase_pct"] })
    assert_recomputed(stored)
  end

  # The budget summarised again from its directory (its copy of the budget, its soaks) gives the same figures.
  def assert_recomputed(stored)
    FileUtils.cp_r(File.join(@tmp, "cached"), File.join(@tmp, "copy"))
    FileUtils.rm(File.join(@tmp, "copy", "summary.json"))
    again = report("copy")
    assert_equal(*[stored, again].map { |summary| summary["entries"].first["figures"] })
    assert_equal %w[complete over], again.values_at("status", "verdict")
  end

  def report(name) = JSON.parse(mallard("report", "--json", File.join(@tmp, name)).first)

  # @return [Hash] the budget's JSON summary, after a run that exited 0
  def budget(name, *args)
    out, err, status = run_budget(name, *args)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  def run_budget(name, *args, env: {})
    mallard("budget", @app, "--duration", 3, "--repeat", 3, "--out", File.join(@tmp, name), *args,
            env: env.merge("MALLARD_TEST_TAG" => @tag), timeout: 40)
  end
end
