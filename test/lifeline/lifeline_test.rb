# frozen_string_literal: true

require "test_helper"

# Lifeline on real processes: a stand-in for mallard (a Ruby process that starts children through
# Lifeline.spawn) is killed with SIGKILL, and nothing it started may survive it.
class LifelineTest < Minitest::Test
  include Processes

  LIB = File.expand_path("../../lib", __dir__)
  # Seconds the watchdog may take: its grace period for TERM, then KILL.
  GONE_WITHIN = 6

  def test_a_child_its_children_and_one_that_left_the_group_die_with_a_killed_mallard
    tag = new_tag("lifeline")
    children = "sleep 300 & setsid sleep 301 & sleep 302"
    mallard, (pgid,) = stand_in(tag, %(Mallard::Lifeline.spawn({}, "sh", "-c", "#{children}")))
    # mallard, its watchdog, sh and three sleeps
    wait_for(message: "the children never started") { processes_tagged(tag).size >= 6 }

    kill_and_reap(mallard)

    assert_gone(tag)
    assert_group_gone(pgid)
  end

  # `sudo` and `env -i` clear the environment, so the token is lost; the process group is not.
  def test_a_child_that_cleared_its_environment_dies_with_its_group
    tag = new_tag("lifeline-env")
    mallard, (pgid,) = stand_in(tag, %(Mallard::Lifeline.spawn({}, "sh", "-c", "env -i sleep 303 & sleep 304")))
    wait_for(message: "the children never started") { processes_in_group(pgid).size >= 3 }

    kill_and_reap(mallard)

    assert_group_gone(pgid)
    assert_gone(tag)
  end

  def test_a_killed_watchdog_is_replaced_and_the_new_one_knows_every_child
    tag = new_tag("lifeline-replaced")
    mallard, (first, second) = stand_in(tag, <<~RUBY)
      first = Mallard::Lifeline.spawn({}, "env", "-i", "sleep", "305")
      Process.kill("KILL", Mallard::Lifeline.watchdog_pid)
      sleep 0.2
      [first, Mallard::Lifeline.spawn({}, "sleep", "306")]
    RUBY
    wait_for(message: "the children never started") { processes_in_group(second).any? }

    kill_and_reap(mallard)

    assert_group_gone(first, second)
    assert_gone(tag)
  end

  # The watchdog's own end: mallard exits normally (here without stopping its child first).
  def test_the_watchdog_ends_what_is_left_and_itself_when_mallard_exits
    tag = new_tag("lifeline-exit")
    mallard, = stand_in(tag, %(Mallard::Lifeline.spawn({}, "sleep", "307")), finally: "exit")
    Timeout.timeout(10) { Process.wait(mallard) }

    assert_gone(tag)
  end

  def test_children_lead_their_own_group_and_carry_the_token_that_names_their_mallard
    reader, writer = IO.pipe
    pid = Mallard::Lifeline.spawn({}, Gem.ruby, "-e", "print ENV['MALLARD_LIFELINE'], ' ', Process.getpgrp",
                                  out: writer)
    writer.close
    Process.wait(pid)
    Mallard::Lifeline.release(pid)
    token, pgid = reader.read.split

    assert_match(/\A#{Process.pid}:\h{16}\z/o, token)
    assert_equal pid, Integer(pgid)
  ensure
    reader&.close
  end

  private

  # A Ruby process that runs code (returning PIDs), prints them, then sleeps (or runs `finally`).
  def stand_in(tag, code, finally: "sleep")
    reader, writer = IO.pipe
    script = "require 'mallard/lifeline'\npids = Array(begin\n#{code}\nend)\n" \
             "puts pids.join(' '); $stdout.flush\n#{finally}"
    pid = Process.spawn({ "MALLARD_TEST_TAG" => tag }, Gem.ruby, "-I#{LIB}", "-e", script, out: writer)
    writer.close
    @spawned << pid
    [pid, Timeout.timeout(10) { reader.gets }.split.map { |each| Integer(each) }]
  ensure
    reader&.close
  end

  def kill_and_reap(pid)
    Process.kill("KILL", pid)
    Process.wait(pid)
  end

  def assert_gone(tag)
    gone = eventually(GONE_WITHIN) { processes_tagged(tag).empty? }
    assert gone, -> { "survived mallard: #{command_lines(processes_tagged(tag))}" }
  end

  def assert_group_gone(*pgids)
    gone = eventually(GONE_WITHIN) { pgids.flat_map { |pgid| processes_in_group(pgid) }.empty? }
    assert gone, -> { "survived mallard: #{command_lines(pgids.flat_map { |pgid| processes_in_group(pgid) })}" }
  end
end
