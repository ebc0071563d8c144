# frozen_string_literal: true

require "test_helper"

# Solid Queue's modes: what each is started with, and its tree read from outside (process ids, the kinds each
# registered in solid_queue_processes) called right or wrong with what it is; puma's with Puma at its root.
class SolidQueueModeTest < Minitest::Test
  FORK = { 10 => ["Supervisor(fork)"], 11 => ["Dispatcher"], 12 => ["Scheduler"], 13 => ["Worker"] }.freeze
  ASYNC = { 20 => ["Supervisor(async)", "Worker", "Dispatcher", "Scheduler"] }.freeze
  # Puma (9, registering nothing) and the fork-mode tree its plugin forks.
  PUMA_TREE = [9, *FORK.keys].freeze

  def test_each_mode_is_started_as_bin_jobs_takes_it
    fork, async = Mallard::SolidQueueMode.parse_all(%w[fork async])

    assert_equal ["--mode", "fork"], fork.arguments
    assert_equal ["--mode", "async"], async.arguments
    assert async.async?
    assert_nil async.after_boot, "a mode rides a comparison's rows as a shape, with no action after boot"
  end

  # bin/jobs reads SOLID_QUEUE_SUPERVISOR_MODE where its command line does not say; Rails 8's config/puma.rb loads the
  # plugin when SOLID_QUEUE_IN_PUMA is set.
  def test_each_mode_is_set_by_its_variable
    fork, puma = Mallard::SolidQueueMode.parse_all(%w[fork puma])

    assert_equal({ "SOLID_QUEUE_SUPERVISOR_MODE" => "fork" }, fork.env)
    assert_equal({ "SOLID_QUEUE_IN_PUMA" => "1" }, puma.env)
    assert puma.puma?
    refute fork.puma?
  end

  def test_puma_registers_nothing_and_solid_queues_processes_under_it_do
    fork, puma = Mallard::SolidQueueMode.parse_all(%w[fork puma])

    assert_equal FORK.keys, puma.registering(PUMA_TREE)
    assert_equal FORK.keys, fork.registering(FORK.keys)
  end

  def test_a_tree_of_its_mode_passes
    fork, async = Mallard::SolidQueueMode.parse_all(%w[fork async])

    assert_nil fork.mismatch(FORK.keys, FORK)
    assert_nil async.mismatch(ASYNC.keys, ASYNC)
    assert_nil Mallard::SolidQueueMode.parse("puma").mismatch(PUMA_TREE, FORK)
  end

  # bin/jobs under puma mode (-- CMD), Puma running Solid Queue in async mode in its own process, or Puma alone.
  def test_a_tree_not_forked_from_puma_is_said_as_it_is
    puma = Mallard::SolidQueueMode.parse("puma")

    assert_equal "puma mode forks a fork-mode supervisor from Puma, which registers nothing, but the tree has 4 " \
                 "processes (10: Supervisor(fork), 11: Dispatcher, 12: Scheduler, 13: Worker)",
                 puma.mismatch(FORK.keys, FORK)
    assert_match(/but the tree has 1 process \(20: Supervisor\(async\)/, puma.mismatch(ASYNC.keys, ASYNC))
    assert_match(/but the tree has 1 process \(9: unregistered\)/, puma.mismatch([9], {}))
    assert_match(/fork mode forks its dispatcher and workers, but the tree has 5 processes \(9: unregistered/,
                 Mallard::SolidQueueMode.parse("fork").mismatch(PUMA_TREE, FORK))
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
    error = assert_raises(Mallard::UsageError) { Mallard::SolidQueueMode.parse_all(%w[fork threads]) }
    assert_equal "--modes takes fork, async, puma, not threads", error.message
    assert_raises(Mallard::UsageError) { Mallard::SolidQueueMode.parse_all([]) }
  end
end
