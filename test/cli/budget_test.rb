# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# `mallard budget`'s refusals, in process: each bad value is a usage error (64) before anything starts, and no run
# directory is made.
class BudgetCommandTest < Minitest::Test
  include CliRuns

  APP = File.expand_path("../fixtures/apps/budgeted", __dir__)

  def setup
    @dir = Dir.mktmpdir("mallard-budget-cli")
    @out = File.join(@dir, "run")
    @file = File.join(@dir, "budget.json")
  end

  def teardown
    FileUtils.remove_entry(@dir)
  end

  def test_bad_values_are_refused_before_anything_starts
    File.write(@file, '{"entries":[{"name":"/","figures":{"live_slots":{"baseline":[1,2]}}}]}')
    {
      ["--file", @file, "--repeat", "0"] => /--repeat must be between 1 and 20, not 0/,
      ["--file", @file, "--max-increase", "-1"] => /--max-increase must be a positive %/,
      ["--file", @file, "--path", "/rows"] => /drop --path and --paths/,
      ["--file", File.join(@dir, "none.json")] => /cannot read the budget file .*make one with --update/,
      ["--file", APP] => /cannot read the budget file/,
      ["--file", @file, "--script", "x.rb"] => /give --script FILE or an app directory, not both/
    }.each do |args, message|
      status, _, err = run_cli("budget", APP, *args, "--out", @out)

      assert_equal 64, status, "#{args.join(' ')}: #{err}"
      assert_match message, err
      refute File.exist?(@out), "#{args.join(' ')} made a run directory"
    end
  end

  def test_a_budget_applies_to_an_app_served_by_puma
    status, _, err = run_cli("budget", "--file", @file, "--url", "http://127.0.0.1:{port}/", "--out", @out, "--",
                             "ruby", "-run", "-e", "httpd", "--", "-p", "{port}")

    assert_equal 64, status, err
    assert_match(/budget applies to an app directory served by Puma/, err)
  end
end
