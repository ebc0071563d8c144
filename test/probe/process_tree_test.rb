# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# A process tree read from a fake /proc built in a temporary directory.
class ProcessTreeTest < Minitest::Test
  ProcessTree = Mallard::Probe::ProcessTree

  def setup
    @proc = Dir.mktmpdir("mallard-process-tree-test")
  end

  def teardown
    FileUtils.remove_entry(@proc)
  end

  # A preforking server: the master's second thread forked one worker, and a worker forked a helper.
  def test_descendants_come_from_every_tasks_children_file
    children(100, 100, "101 102")
    children(100, 105, "103\n")
    children(101, 101, "104")
    [102, 103, 104].each { |pid| children(pid, pid, "") }

    assert_equal [100, 101, 102, 103, 104], ProcessTree.pids(100, proc_root: @proc).sort
    assert_equal [101, 104], ProcessTree.pids(101, proc_root: @proc).sort
  end

  def test_a_process_gone_from_proc_is_its_own_tree
    assert_equal [100], ProcessTree.pids(100, proc_root: @proc)
  end

  # Kernels without CONFIG_PROC_CHILDREN: parents read from each /proc/N/stat, after the command name's last ")",
  # because a command name may hold spaces and parentheses.
  def test_without_children_files_parents_are_read_from_stat
    stat(200, "ruby", parent: 1)
    stat(201, "puma: cluster worker 0: 200 [app]", parent: 200)
    stat(202, "a) S 999 (b", parent: 201)
    stat(203, "sh -c (sleep 1)", parent: 200)
    stat(204, "x) S 200 (y", parent: 1) # names its would-be parent, but its parent is 1
    stat(205, "unrelated", parent: 1)
    FileUtils.mkdir_p(File.join(@proc, "206"))
    File.write(File.join(@proc, "206", "stat"), "206 (cut sh") # read as the process vanished

    assert_equal [200, 201, 202, 203], ProcessTree.pids(200, proc_root: @proc).sort
  end

  private

  def children(pid, tid, list)
    task = File.join(@proc, pid.to_s, "task", tid.to_s)
    FileUtils.mkdir_p(task)
    File.write(File.join(task, "children"), list)
  end

  # A process with its task directory but no children files, as an older kernel shows it.
  def stat(pid, command, parent:)
    FileUtils.mkdir_p(File.join(@proc, pid.to_s, "task", pid.to_s))
    File.write(File.join(@proc, pid.to_s, "stat"), "#{pid} (#{command}) S #{parent} #{pid} #{pid} 0 -1 4194560 0 0\n")
  end
end
