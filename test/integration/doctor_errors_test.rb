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

    assert_match(%r{lib/mallard/probe/doctor\.rb:\d+:in}, err)
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

  def test_a_zombie_is_named_as_one_with_the_parent_that_has_not_reaped_it
    parent, zombie = spawn_with_zombie

    assert_fails_with 66, /\Amallard: PID #{zombie} \(ruby[\d.]*\) is a zombie: .* its parent, PID #{parent}, /,
                      "doctor", zombie
  end

  # Root refused by the kernel, as in a container whose PID 1 another user namespace owns: here root without the
  # capabilities that let it read another user's /proc files (the file modes' overrides and ptrace's), which
  # setpriv drops from the start.
  def test_root_refused_by_the_kernel_is_not_told_to_run_as_root
    skip "needs root to run mallard as another user" unless Process.uid.zero? && File.executable?("/usr/bin/setpriv")

    target = spawn_ruby("", prefix: AS_NOBODY)
    _out, err, status = Timeout.timeout(TEST_TIMEOUT) do
      Open3.capture3(*ROOT_UNPRIVILEGED, Gem.ruby, EXE, "doctor", target.to_s)
    end

    assert_equal 77, status.exitstatus, err
    assert_match(%r{\Amallard: may not read /proc/#{target}/\w+ even as root: the kernel's ptrace check refused}, err)
    refute_match(/run mallard .*as root/, err)
  end

  # Not dumpable: /proc/PID's files then belong to root, whoever runs the process.
  def test_same_user_refused_is_told_the_uid_it_really_runs_as
    skip "needs root to run mallard as another user" unless Process.uid.zero? && File.executable?("/usr/bin/setpriv")

    target = spawn_ruby(NOT_DUMPABLE, prefix: AS_NOBODY)
    _out, err, status = Timeout.timeout(TEST_TIMEOUT) do
      Open3.capture3(*AS_NOBODY, Gem.ruby, EXE, "doctor", target.to_s)
    end

    assert_equal 77, status.exitstatus
    nobody = Etc.getpwnam("nobody").uid
    assert_match(%r{may not read /proc/#{target}/\w+ although it runs as this user \(uid #{nobody}\)}, err)
  end

  private

  AS_NOBODY = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"].freeze
  WITHOUT_OVERRIDES = "-dac_override,-dac_read_search,-sys_ptrace"
  ROOT_UNPRIVILEGED = ["/usr/bin/setpriv", "--inh-caps=#{WITHOUT_OVERRIDES}",
                       "--bounding-set=#{WITHOUT_OVERRIDES}"].freeze
  NOT_DUMPABLE = <<~RUBY
    require "fiddle"
    prctl = Fiddle::Function.new(Fiddle::Handle::DEFAULT["prctl"], [Fiddle::TYPE_INT] + [Fiddle::TYPE_LONG] * 4,
                                 Fiddle::TYPE_INT)
    prctl.call(4, 0, 0, 0, 0) # PR_SET_DUMPABLE
  RUBY

  # A Ruby process with a child that has exited and that it never waits for.
  def spawn_with_zombie
    reader, writer = IO.pipe
    parent = Process.spawn(Gem.ruby, "-e", "pid = fork { exit! }; sleep 0.3; puts pid; $stdout.flush; sleep",
                           out: writer)
    writer.close
    @spawned << parent
    [parent, Integer(Timeout.timeout(10) { reader.gets })]
  ensure
    reader&.close
  end

  def assert_fails_with(code, message, *args)
    out, err, status = mallard(*args)

    assert_equal code, status.exitstatus, "stderr: #{err}"
    assert_match message, err
    assert_empty out
    assert_equal 1, err.lines.size, "one line, no backtrace: #{err}" unless message.source.include?("known")
  end
end
