# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# A kernel thread has no user memory to diagnose: doctor names it as one. Its /proc files are a stored copy of
# kthreadd's (PID 2, Linux 6.18), because a container's PID namespace shows no kernel thread at all.
class DoctorKernelThreadTest < Minitest::Test
  KTHREADD = File.expand_path("../fixtures/proc/kthreadd", __dir__)

  def test_a_kernel_thread_is_named_as_one
    error = assert_raises(Mallard::NotFound) { diagnose(KTHREADD) }

    assert_match(/\APID 2 \(kthreadd\) is a kernel thread: it has no user memory/, error.message)
  end

  # Before Linux 6.0 status has no "Kthread:" line; the PF_KTHREAD flag in stat tells.
  def test_before_the_kthread_line_the_flag_in_stat_tells
    Dir.mktmpdir do |root|
      older_kernel(root, flags: 2_129_984)
      assert_match(/is a kernel thread/, assert_raises(Mallard::NotFound) { diagnose(root) }.message)

      older_kernel(root, flags: 2_129_984 & ~Mallard::Probe::Doctor::PF_KTHREAD)
      error = assert_raises(Mallard::NotFound) { diagnose(root) } # no environ in the copy: read as gone
      assert_equal "no process with PID 2", error.message
    end
  end

  private

  def diagnose(root)
    Mallard::Probe::Doctor.new(proc_root: root).diagnose(2)
  end

  def older_kernel(root, flags:)
    dir = File.join(root, "2")
    FileUtils.mkdir_p(dir)
    status = File.readlines(File.join(KTHREADD, "2", "status")).grep_v(/\AKthread:/).join
    stat = File.read(File.join(KTHREADD, "2", "stat")).sub(" 2129984 ", " #{flags} ")
    File.write(File.join(dir, "status"), status)
    File.write(File.join(dir, "stat"), stat)
  end
end
