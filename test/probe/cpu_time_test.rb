# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# CPU time of real processes, as /proc counts it.
class CpuTimeTest < Minitest::Test
  BURN = "t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID); " \
         "nil while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t < 0.4"

  # A workload stopped part-way through a run must not take its CPU with it: it moves to the parent's cutime.
  def test_a_reaped_child_stays_counted_in_its_parent
    before = Mallard::Probe::CpuTime.processes([Process.pid])
    child = Process.spawn(Gem.ruby, "--disable-gems", "-e", BURN)
    Process.wait(child)
    after = Mallard::Probe::CpuTime.processes([Process.pid])

    assert_operator after - before, :>=, 0.35
  end

  # The machine's busy time, over a stretch in which this process burns 0.4 s of CPU: at least that, and no more
  # than every CPU of the machine busy for the whole stretch (a reading that counted idle time would be exactly that
  # much, so the fixture below tells the two apart).
  def test_the_machine_counts_the_cpu_burnt_here_and_no_more_than_all_its_cpus
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    before = Mallard::Probe::CpuTime.machine
    burnt = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    nil while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - burnt < 0.4
    busy = Mallard::Probe::CpuTime.machine - before
    elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    cpus = File.foreach("/proc/stat").count { |line| line.match?(/\Acpu\d/) }

    assert_operator busy, :>=, 0.35
    assert_operator busy, :<=, (elapsed * cpus) + (2 * cpus / Mallard::Probe::CpuTime::TICKS)
  end

  # /proc/stat's first line as the kernel writes it: busy is user, nice, system, irq, softirq and steal; idle and
  # iowait are not, nor guest time (already inside user).
  def test_the_machine_is_busy_for_the_fields_that_are_not_idle
    Dir.mktmpdir do |proc_root|
      line = "100 20 30 4000 500 6 7 8 9 10\n"
      File.write(File.join(proc_root, "stat"), "cpu  #{line}cpu0 #{line}")

      assert_in_delta 171 / Mallard::Probe::CpuTime::TICKS, Mallard::Probe::CpuTime.machine(proc_root: proc_root), 1e-9
    end
  end
end
