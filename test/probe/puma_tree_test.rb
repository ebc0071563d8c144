# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# Puma's tree read from a fake /proc: workers by their title, pool threads by their name, preloading by Puma's word.
class PumaTreeTest < Minitest::Test
  PumaTree = Mallard::Probe::PumaTree
  PumaShape = Mallard::PumaShape

  def setup
    @proc = Dir.mktmpdir("mallard-puma-tree-test")
    @log = File.join(@proc, "subject.log")
    File.write(@log, "* Puma version: 5.6.5\n")
  end

  def teardown
    FileUtils.remove_entry(@proc)
  end

  # A master of two workers, each with 5 pool threads beside Ruby's own and the reactor; the master has none.
  def test_a_preloaded_cluster_of_two_workers_of_five_threads
    process(100, "puma 5.6.5 (tcp://127.0.0.1:3000) [app]", children: "101 102", threads: ["ruby", "puma stat"])
    [101, 102].each do |pid|
      process(pid, "puma: cluster worker #{pid - 101}: 100 [app]",
              threads: ["ruby", "puma reactor", *Array.new(5) { |i| "puma srv tp 00#{i + 1}" }])
    end
    File.write(@log, "* Preloading application\n", mode: "a")
    seen = PumaTree.read(100, log_path: @log, proc_root: @proc)

    assert_equal({ workers: 2, threads: [5, 5], preloaded: true, forked_from_first: false, reforks: 0,
                   pids: [100, 101, 102] }, seen)
    assert_nil PumaTree.mismatch(PumaShape.parse("2x5"), seen)
    assert_match(/not 2x5-nopreload: the master preloaded the app .*preload_app!/,
                 PumaTree.mismatch(PumaShape.parse("2x5-nopreload"), seen))
    assert_equal "the Puma tree is not 3x4: 2 workers, not 3; pool threads per process 5, 5, not 4",
                 PumaTree.mismatch(PumaShape.parse("3x4"), seen)
  end

  # Single mode: the one process serves, and it never preloads.
  def test_single_mode_counts_the_roots_own_pool
    process(200, "puma 5.6.5 (tcp://127.0.0.1:3000) [app]", threads: ["ruby", "puma srv tp 001", "puma srv tp 002"])
    seen = PumaTree.read(200, log_path: @log, proc_root: @proc)

    assert_equal [0, [2], false], seen.values_at(:workers, :threads, :preloaded)
    assert_nil PumaTree.mismatch(PumaShape.parse("0x2"), seen)
    assert_match(/0 workers, not 1; .*did not preload/, PumaTree.mismatch(PumaShape.parse("1x2"), seen))
  end

  def test_a_tree_gone_from_proc_has_no_workers_and_no_threads
    seen = PumaTree.read(300, log_path: File.join(@proc, "missing.log"), proc_root: @proc)

    assert_equal({ workers: 0, threads: [0], preloaded: false, forked_from_first: false, reforks: 0, pids: [300] },
                 seen)
  end

  # fork_worker: the master forks worker 0, which forks the others; reforks are Puma's own log lines (Puma 6's words,
  # and Puma 5's, which calls a refork a phased restart). Preloading is Puma's to decide there, so it is not judged.
  def test_fork_worker_has_the_other_workers_under_worker_0_and_counts_reforks
    process(100, "puma 6.4.2 (tcp://127.0.0.1:3000) [app]", children: "101", threads: ["ruby"])
    process(101, "puma: cluster worker 0: 100 [app]", children: "102 103", threads: pool(2))
    [102, 103].each { |pid| process(pid, "puma: cluster worker #{pid - 101}: 100 [app]", threads: pool(2)) }
    File.write(@log, "- Starting worker refork, phase: 1\n- Starting phased worker restart, phase: 2\n", mode: "a")
    File.write(@log, "* Preloading application\n", mode: "a")
    seen = PumaTree.read(100, log_path: @log, proc_root: @proc)

    assert_equal [3, [2, 2, 2], true, 2], seen.values_at(:workers, :threads, :forked_from_first, :reforks)
    assert_nil PumaTree.mismatch(PumaShape.parse("3x2-refork"), seen), "preloaded or not, fork_worker's tree"
    assert_equal 2, PumaTree.reforks(@log)
  end

  def test_workers_forked_by_the_master_are_no_fork_worker_tree
    process(100, "puma 6.4.2 (tcp://127.0.0.1:3000) [app]", children: "101 102", threads: ["ruby"])
    [101, 102].each { |pid| process(pid, "puma: cluster worker #{pid - 101}: 100 [app]", threads: pool(2)) }
    seen = PumaTree.read(100, log_path: @log, proc_root: @proc)

    assert_equal "the Puma tree is not 2x2-refork: the workers are not children of worker 0 (did Puma take " \
                 "--fork-worker?)", PumaTree.mismatch(PumaShape.parse("2x2-refork"), seen)
  end

  private

  def pool(count) = ["ruby", *Array.new(count) { |i| "puma srv tp 00#{i + 1}" }]

  def process(pid, title, threads:, children: "")
    dir = File.join(@proc, pid.to_s)
    File.write(File.join(FileUtils.mkdir_p(dir).first, "cmdline"), "#{title}\0")
    threads.each_with_index do |name, index|
      task = FileUtils.mkdir_p(File.join(dir, "task", ((pid * 10) + index).to_s)).first
      File.write(File.join(task, "comm"), "#{name}\n")
      File.write(File.join(task, "children"), index.zero? ? children : "")
    end
  end
end
