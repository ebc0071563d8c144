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

    assert_equal({ workers: 2, threads: [5, 5], preloaded: true, pids: [100, 101, 102] }, seen)
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

    assert_equal({ workers: 0, threads: [0], preloaded: false, pids: [300] }, seen)
  end

  private

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
