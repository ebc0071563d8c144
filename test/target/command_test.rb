# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# What mallard keeps of a subject's command and output: valid UTF-8 whatever the bytes, while the
# command it runs keeps them.
class CommandTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("mallard-command-test")
    @log = File.join(@tmp, "subject.log")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_the_output_tail_is_scrubbed_line_by_line
    File.binwrite(@log, "booting\n\e[31mfailed\e[0m\nx \xff\n")
    tail = Mallard::Target::Command.new(["true"], log_path: @log).output_tail

    assert_equal ["booting", "\e[31mfailed\e[0m", "x \\xFF"], tail
    assert JSON.generate(tail)
  end

  def test_the_display_is_scrubbed_but_the_argv_run_keeps_its_bytes
    argv = ["ruby", "app \xff"]
    command = Mallard::Target::Command.new(argv, log_path: @log)

    assert_equal "ruby app\\ \\\\xFF", command.display
    assert_same argv, command.argv
    assert_equal "app \xff".b, command.argv.last.b
  end
end

# A step that prepares a run (initdb, bin/rails db:prepare) is run to its end: its failure, or its running out of
# time, says which step and how it ended, with its last lines.
class CommandRunTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("mallard-command-run-test")
    @log = File.join(@tmp, "setup.log")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_a_step_that_succeeds_has_ended_when_it_returns
    step = command("echo made; exit 0").run!(timeout: 10, what: "make it")

    assert step.status.success?
    assert_equal ["made"], step.output_tail
  end

  def test_a_failed_step_says_what_it_did_not_do_with_its_last_lines
    error = assert_raises(Mallard::SubjectFailed) { command("echo no room; exit 3").run!(timeout: 10, what: "make it") }

    assert_match(/\A`sh -c .*` did not make it \(exit status 3\)\z/, error.message)
    assert_equal ["no room"], error.output_tail
  end

  def test_a_step_out_of_time_is_stopped
    error = assert_raises(Mallard::SubjectFailed) { command("sleep 30").run!(timeout: 0.2, what: "make it") }

    assert_match(/did not make it \(killed by signal 15\)/, error.message)
  end

  private

  def command(script) = Mallard::Target::Command.new(["sh", "-c", script], log_path: @log, chdir: @tmp)
end
