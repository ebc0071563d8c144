# frozen_string_literal: true

require "test_helper"

# The CLI driven in-process: statuses are returned, never exited.
class CLITest < Minitest::Test
  include CliRuns
  def test_help_lists_the_commands
    status, out, = run_cli("--help")

    assert_equal 0, status
    assert_match(/doctor \[PID \| -- CMD ARGS\]/, out)
  end

  def test_version
    assert_equal [0, "#{Mallard::VERSION}\n", ""], run_cli("--version")
  end

  def test_no_command_is_a_usage_error
    assert_equal [64, "", "mallard: no command given; try `mallard --help`\n"], run_cli
  end

  def test_doctor_help_explains_exit_statuses
    status, out, = run_cli("doctor", "--help")

    assert_equal 0, status
    assert_match(/77 not permitted/, out)
  end

  # demo's help says what the demo runs before the options it passes on to compare.
  def test_demo_help_names_its_settings_then_compares_options
    status, out, = run_cli("demo", "--help")

    assert_equal 0, status
    assert_match(/\AUsage: mallard demo \[--sidekiq\].*--allocators glibc,glibc-arena2/m, out)
    assert_operator out.index("Usage: mallard compare"), :>, out.index("Usage: mallard demo")
  end

  # Crossed axes multiply: a comparison that plans more runs than --max-runs is refused before anything starts.
  def test_a_comparison_past_max_runs_is_refused_until_the_bound_is_raised
    stable = File.expand_path("../fixtures/apps/stable", __dir__)
    status, _out, err = run_cli("compare", stable, "--allocators", "glibc,glibc-arena2", "--yjit", "on,off",
                                "--repeat", "20")

    assert_equal 64, status
    assert_includes err, "4 rows × 20 repeats and one run each with the agent is 84 runs, more than --max-runs 80"
  end

  def test_options_after_the_separator_belong_to_the_command
    status, _out, err = run_cli("doctor", "--allocator", "nope", "--", "ruby", "--debug")

    assert_equal 64, status
    refute_match(/\.rb:\d+/, err, "--debug after -- is the subject's, not mallard's")
  end

  def test_pid_and_command_together_are_refused
    assert_equal 64, run_cli("doctor", "1", "--", "ruby").first
  end

  def test_allocator_without_a_command_is_refused
    _, _, err = run_cli("doctor", "--allocator", "jemalloc")

    assert_match(/--allocator goes with -- CMD/, err)
  end
end
