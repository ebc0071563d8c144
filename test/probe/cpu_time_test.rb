# frozen_string_literal: true

require "test_helper"

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

  def test_the_machine_is_busier_than_nothing
    assert_operator Mallard::Probe::CpuTime.machine, :>, 0
  end
end
