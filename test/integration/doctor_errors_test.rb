# frozen_string_literal: true

require "test_helper"

# Bad input to the real executable: one line on stderr, a distinct status, no backtrace.
class DoctorErrorsTest < Minitest::Test
  include Processes

  def test_no_such_process
    assert_fails_with 66, /\Amallard: no process with PID \d+\n\z/, "doctor", dead_pid
  end

  def test_pid_that_is_not_a_number
    assert_fails_with 64, /PID must be a number, got 'abc'/, "doctor", "abc"
  end

  def test_unknown_option
    assert_fails_with 64, /invalid option: --bogus/, "doctor", "--bogus"
  end

  def test_unknown_command
    assert_fails_with 64, /unknown command 'frob'/, "frob"
  end

  def test_unknown_allocator
    assert_fails_with 64, /unknown allocator 'nope'; known: glibc, glibc-arena2/,
                      "doctor", "--allocator", "nope", "--", Gem.ruby, "-e", "sleep"
  end

  def test_command_that_exits_before_it_is_up_shows_its_last_output
    _out, err, status = mallard("doctor", "--", Gem.ruby, "-e", "warn 'config is broken'; exit 3")

    assert_equal 69, status.exitstatus
    assert_match(/exited \(exit status 3\) before it was up/, err)
    assert_match(/\| config is broken/, err)
    refute_match(/\.rb:\d+:in /, err, "no backtrace without --debug")
  end

  def test_command_not_found
    assert_fails_with 69, /cannot start `no-such-command-here`: No such file or directory/,
                      "doctor", "--", "no-such-command-here"
  end

  def test_debug_adds_the_backtrace
    _out, err, = mallard("doctor", dead_pid, "--debug")

    assert_match(%r{lib/mallard/experiments/doctor\.rb:\d+:in}, err)
  end

  def test_process_this_user_may_not_read
    skip "needs root to run mallard as another user" unless Process.uid.zero? && File.executable?("/usr/bin/setpriv")

    target = spawn_ruby("")
    _out, err, status = Timeout.timeout(TEST_TIMEOUT) do
      Open3.capture3("/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                     Gem.ruby, EXE, "doctor", target.to_s)
    end

    assert_equal 77, status.exitstatus
    assert_match(%r{may not read /proc/#{target}/\w+ \(the process belongs to uid 0\)}, err)
  end

  def test_wait_must_be_a_positive_number_of_seconds
    assert_fails_with 64, /\Amallard: doctor: --wait must be a positive number of seconds, got -1\n\z/,
                      "doctor", "--wait", "-1", "--", Gem.ruby, "-e", "sleep"
  end

  private

  def assert_fails_with(code, message, *args)
    out, err, status = mallard(*args)

    assert_equal code, status.exitstatus, "stderr: #{err}"
    assert_match message, err
    assert_empty out
    assert_equal 1, err.lines.size, "one line, no backtrace: #{err}" unless message.source.include?("known")
  end
end
