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
