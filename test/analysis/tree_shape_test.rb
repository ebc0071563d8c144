# frozen_string_literal: true

require "test_helper"

# A server's tree from its processes' readings: roles by the titles servers give them, and what the tree holds.
class TreeShapeTest < Minitest::Test
  def test_a_puma_cluster_is_a_master_and_its_workers_with_what_they_share
    readings = [reading(10, 1, "puma 5.6.5 (tcp://127.0.0.1:9292) [app]", 0, rss: 75_000, pss: 25_000, uss: 2_500),
                reading(11, 10, "puma: cluster worker 0: 10 [app]", 5, rss: 70_000, pss: 24_000, uss: 2_000),
                reading(12, 10, "puma: cluster worker 1: 10 [app]", 5, rss: 71_000, pss: 25_000, uss: 3_000)]
    tree = Mallard::Analysis::TreeShape.call(readings)

    assert_equal ["puma", 2, [5, 5]], [tree.server, tree.workers, tree.threads]
    assert_equal ["master", "worker 0", "worker 1"], tree.processes.map(&:role)
    assert_equal [74_000, 7_500, 66_500], [tree.pss_kb, tree.uss_kb, tree.shared_kb]
    assert_equal 2_500, tree.worker_uss_kb, "the median worker's own memory"
    assert_in_delta 96.5, tree.worker_shared_pct, 0.1
    assert_equal [72_500, 96.7], [tree.processes.first.shared_kb, tree.processes.first.shared_pct]
  end

  def test_pitchforks_mold_and_workers_are_named_by_its_titles
    readings = [reading(20, 1, "pitchfork monitor", 0), reading(21, 20, "pitchfork (gen:1) mold - ready", 0),
                reading(22, 21, "pitchfork (gen:1) worker[0] - ready", 0), reading(23, 1, "sh -c sleep 9", 0)]
    tree = Mallard::Analysis::TreeShape.call(readings)

    assert_equal "pitchfork", tree.server
    assert_equal ["master", "mold", "worker 0", "child"], tree.processes.map(&:role)
    assert_equal 1, tree.workers
  end

  def test_solid_queues_roles_are_named_by_its_titles_the_supervisor_included
    readings = [reading(30, 1, "solid-queue-fork-supervisor(1.7.2): supervising 31, 32, 33", 0),
                reading(31, 30, "solid-queue-dispatcher(1.7.2): dispatching every 1 seconds", 0),
                reading(32, 30, "solid-queue-worker(1.7.2): waiting for jobs in *", 0),
                reading(33, 30, "solid-queue-scheduler(1.7.2): scheduling tidy", 0)]
    tree = Mallard::Analysis::TreeShape.call(readings)

    assert_equal "solid_queue", tree.server
    assert_equal %w[supervisor dispatcher worker scheduler], tree.processes.map(&:role)
    assert_equal 1, tree.workers
  end

  # Solid Queue inside Puma (its plugin): the Puma at the root hosts the supervisor, and is a role of its own.
  def test_a_puma_hosting_solid_queue_is_its_own_role
    readings = [reading(40, 1, "puma 8.0.2 (tcp://127.0.0.1:9292) [app]", 3),
                reading(41, 40, "solid-queue-fork-supervisor(1.7.2): supervising 42, 43", 0),
                reading(42, 41, "solid-queue-dispatcher(1.7.2): dispatching every 1 seconds", 0),
                reading(43, 41, "solid-queue-worker(1.7.2): waiting for jobs in *", 0)]
    tree = Mallard::Analysis::TreeShape.call(readings)

    assert_equal "puma", tree.server
    assert_equal %w[puma supervisor dispatcher worker], tree.processes.map(&:role)
    assert_equal 1, tree.workers
  end

  # Resque's titles say what each is doing, not what it is: the parent is the one at the root, a child forked for one
  # job keeps the title its parent had as it forked.
  def test_resques_parent_and_its_child_for_one_job
    readings = [reading(50, 1, "resque-3.2.0: Forked 51 at 1764300000", 0),
                reading(51, 50, "resque-3.2.0: Processing default since 1764300000 [SmallJob]", 0)]
    tree = Mallard::Analysis::TreeShape.call(readings)

    assert_equal "resque", tree.server
    assert_equal %w[parent child], tree.processes.map(&:role)
  end

  def test_a_process_alone_is_no_tree
    assert_nil Mallard::Analysis::TreeShape.call([reading(1, 0, "ruby app.rb", 0)])
  end

  private

  def reading(pid, parent, title, threads, rss: 10_000, pss: 5_000, uss: 4_000)
    { pid: pid, parent: parent, title: title, pool_threads: threads,
      memory: { rss_kb: rss, pss_kb: pss, uss_kb: uss, swap_kb: 0 } }
  end
end
