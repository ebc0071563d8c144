# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "fileutils"

# The subject's memory cgroup, read and never written: this process's own where the machine gives one, and v1's and
# v2's files as fixture text under a made-up mount.
class CgroupMemoryTest < Minitest::Test
  CgroupMemory = Mallard::Probe::CgroupMemory
  PROC_V1 = "12:pids:/user.slice\n4:memory:/jobs/42\n3:cpu,cpuacct:/\n0::/user.slice\n"
  PROC_V2 = "0::/system.slice/app.service\n"

  def setup
    @root = Dir.mktmpdir("mallard-cgroup-test")
  end

  def teardown
    FileUtils.remove_entry(@root)
  end

  # What /proc/self/cgroup names here, read from /sys/fs/cgroup as the sampler reads a subject's.
  def test_this_process_s_own_cgroup_reads_as_figures
    cgroup = CgroupMemory.of(Process.pid)
    skip "this process sits in no readable memory cgroup" unless cgroup

    reading = cgroup.read

    assert_includes [1, 2], reading[:version]
    assert_includes File.read("/proc/self/cgroup"), reading[:path]
    assert_operator reading[:usage_kb], :>, 0
    assert_operator reading[:processes], :>=, 1, "this process is in it"
    assert_operator reading[:anon_kb], :<=, reading[:usage_kb] + 1024 if reading[:anon_kb]
  end

  def test_a_process_that_has_gone_has_no_cgroup
    assert_nil CgroupMemory.of((2**22) + 7)
  end

  def test_v1_names_the_memory_hierarchy_and_reads_its_files
    write("proc/9/cgroup", PROC_V1)
    dir = "sys/memory/jobs/42"
    write("#{dir}/memory.usage_in_bytes", "#{300 * 1024 * 1024}\n")
    write("#{dir}/memory.max_usage_in_bytes", "#{400 * 1024 * 1024}\n")
    write("#{dir}/memory.limit_in_bytes", "9223372036854771712\n")
    write("#{dir}/memory.failcnt", "0\n")
    write("#{dir}/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    write("#{dir}/memory.stat", "cache 1024\nrss 2048\ntotal_cache 10485760\ntotal_rss 293601280\n")
    write("#{dir}/cgroup.procs", "9\n10\n11\n")

    assert_equal({ version: 1, path: "/jobs/42", usage_kb: 307_200, peak_kb: 409_600, anon_kb: 286_720,
                   file_kb: 10_240, limit_kb: nil, failcnt: 0, oom_kills: 2, processes: 3 }, read(9))
  end

  # A v2 hierarchy mounted beside v1 without the memory controller has no memory files: passed over for v1's.
  def test_a_hybrid_host_s_unified_hierarchy_without_memory_is_passed_over
    write("proc/9/cgroup", PROC_V1)
    write("sys/unified/user.slice/cgroup.procs", "9\n")
    write("sys/memory/jobs/42/memory.usage_in_bytes", "4096\n")

    assert_equal 1, read(9)[:version]
  end

  def test_v2_reads_current_peak_max_stat_and_events
    write("proc/9/cgroup", PROC_V2)
    dir = "sys/system.slice/app.service"
    write("#{dir}/memory.current", "#{200 * 1024 * 1024}\n")
    write("#{dir}/memory.peak", "#{250 * 1024 * 1024}\n")
    write("#{dir}/memory.max", "#{512 * 1024 * 1024}\n")
    write("#{dir}/memory.stat", "anon 157286400\nfile 52428800\nkernel 1048576\n")
    write("#{dir}/memory.events", "low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n")
    write("#{dir}/cgroup.procs", "9\n")

    assert_equal({ version: 2, path: "/system.slice/app.service", usage_kb: 204_800, peak_kb: 256_000,
                   anon_kb: 153_600, file_kb: 51_200, limit_kb: 524_288, failcnt: 5, oom_kills: 1, processes: 1 },
                 read(9))
  end

  # A kernel before 5.19 has no memory.peak; "max" is no limit.
  def test_v2_without_peak_and_limit
    write("proc/9/cgroup", PROC_V2)
    dir = "sys/system.slice/app.service"
    write("#{dir}/memory.current", "1048576\n")
    write("#{dir}/memory.max", "max\n")

    reading = read(9)

    assert_equal 1024, reading[:usage_kb]
    assert_nil reading[:peak_kb]
    assert_nil reading[:limit_kb]
    assert_nil reading[:oom_kills]
  end

  def test_no_memory_hierarchy_is_no_cgroup
    write("proc/9/cgroup", "3:cpu:/\n0::/\n")

    assert_nil CgroupMemory.of(9, proc_root: path("proc"), mount_root: path("sys"))
  end

  private

  def read(pid) = CgroupMemory.of(pid, proc_root: path("proc"), mount_root: path("sys")).read

  def path(relative) = File.join(@root, relative)

  def write(relative, text)
    FileUtils.mkdir_p(File.dirname(path(relative)))
    File.write(path(relative), text)
  end
end
