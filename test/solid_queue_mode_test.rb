# frozen_string_literal: true

require "test_helper"

# Solid Queue's modes: what each is started with, and its tree read from outside (process ids, the kinds each
# registered in solid_queue_processes) called right or wrong with what it is.
class SolidQueueModeTest < Minitest::Test
  FORK = { 10 => ["Supervisor(fork)"], 11 => ["Dispatcher"], 12 => ["Scheduler"], 13 => ["Worker"] }.freeze
  ASYNC = { 20 => ["Supervisor(async)", "Worker", "Dispatcher", "Scheduler"] }.freeze

  def test_each_mode_is_started_as_bin_jobs_takes_it
    fork, async = Mallard::SolidQueueMode.parse_all(%w[fork async])

    assert_equal ["--mode", "fork"], fork.arguments
    assert_equal ["--mode", "async"], async.arguments
    assert async.async?
    assert_nil async.after_boot, "a mode rides a comparison's rows as a shape, with no action after boot"
  end

  def test_a_tree_of_its_mode_passes
    fork, async = Mallard::SolidQueueMode.parse_all(%w[fork async])

    assert_nil fork.mismatch(FORK.keys, FORK)
    assert_nil async.mismatch(ASYNC.keys, ASYNC)
  end

  def test_a_tree_of_the_other_mode_is_said_as_it_is
    fork, async = Mallard::SolidQueueMode.parse_all(%w[fork async])

    assert_equal "async mode runs in one process, but the tree has 4 processes (10: Supervisor(fork), " \
                 "11: Dispatcher, 12: Scheduler, 13: Worker)", async.mismatch(FORK.keys, FORK)
    assert_equal "fork mode forks its dispatcher and workers, but the tree has 1 process " \
                 "(20: Supervisor(async)+Worker+Dispatcher+Scheduler)", fork.mismatch(ASYNC.keys, ASYNC)
  end

  def test_a_fork_tree_without_its_forked_worker_is_wrong
    kinds = FORK.reject { |pid, _| pid == 13 }

    assert_match(/but the tree has 3 processes/, Mallard::SolidQueueMode.parse("fork").mismatch(kinds.keys, kinds))
  end

  def test_modes_are_refused_plainly
    error = assert_raises(Mallard::UsageError) { Mallard::SolidQueueMode.parse_all(%w[puma]) }
    assert_match(/not measured yet/, error.message)
    assert_raises(Mallard::UsageError) { Mallard::SolidQueueMode.parse_all([]) }
  end
end
