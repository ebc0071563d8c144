# frozen_string_literal: true

require "test_helper"
require "json"

# The sampler on the one process every test has: this one.
class SamplerTest < Minitest::Test
  Run = Mallard::Run

  # Above the largest pid_max Linux allows (2**22), so never a process.
  NO_SUCH_PID = (2**22) + 1

  def setup
    @records = []
    @sampler = Mallard::Probe::Sampler.new(root_pid: Process.pid, writer: @records, clock: -> { 1.23456 })
  end

  def test_one_memory_record_per_process_then_one_total
    total = @sampler.sample(requests: 42)
    memory = @records.select { |record| record[:kind] == "memory" }

    assert_equal total, @records.last
    assert_equal "total", total[:kind]
    assert_equal @records.size - 1, memory.size + cgroups.size
    assert_equal memory.size, total[:processes]
    assert_equal Process.pid, memory.first[:pid]
    assert_equal "main", memory.first[:role]
  end

  def test_the_total_sums_the_processes_at_one_time
    total = @sampler.sample
    memory = @records.select { |record| record[:kind] == "memory" }

    %i[rss_kb pss_kb uss_kb swap_kb].each do |key|
      assert_equal memory.sum { |record| record[key] }, total[key], key
    end
    assert_operator total[:rss_kb], :>, 0
    assert_operator total[:pss_kb], :<=, total[:rss_kb]
    assert_equal [1.235], @records.map { |record| record[:t] }.uniq, "the clock, rounded to the millisecond"
  end

  def test_counters_and_cpu_time_are_kept_with_the_total
    total = @sampler.sample(requests: 42)

    assert_equal 42, total[:requests]
    assert_operator total[:cpu_s], :>, 0, "this process has run"
    assert_in_delta total[:cpu_s], @records.select { |record| record[:kind] == "memory" }.sum { |r| r[:cpu_s] }, 0.002,
                    "each process's CPU, in its own record, sums to the tree's"
    assert_operator total[:own_cpu_s], :>=, total[:cpu_s], "mallard's own tree includes its subject"
    assert_operator total[:machine_cpu_s], :>=, total[:own_cpu_s]
  end

  # What the sampler writes is what the run model reads.
  def test_every_record_reads_back_as_its_run_model_value
    @sampler.sample(requests: 42)
    values = @records.map { |record| Run.record(JSON.parse(JSON.generate(record))).last }

    assert_equal ([Run::ProcessSample] * (values.size - 1 - cgroups.size)) + ([Run::CgroupSample] * cgroups.size) +
                 [Run::TotalSample], values.map(&:class)
    assert_equal 42, values.last.requests
    assert_equal Process.pid, values.first.pid
  end

  # The whole smaps at a process's first tick and every MAPPINGS_EVERY seconds after, with the stacks and the
  # file-backed PSS from it; the summary between. The sums are the same either way.
  def test_the_mappings_are_read_at_the_first_tick_and_every_few_seconds_after
    ticks = own_ticks([10.0, 12.0, 10.0 + Mallard::Probe::Sampler::MAPPINGS_EVERY])

    assert_equal([true, false, true], ticks.map { |tick| tick.key?(:stacks_kb) })
    assert_operator ticks.first[:stacks_kb], :>, 0, "the main thread has a stack"
    assert_operator ticks.first[:file_pss_kb], :>, 0, "Ruby's own code is file-backed"
    assert_operator ticks.first[:file_pss_kb], :<=, ticks.first[:pss_kb]
    assert_in_delta ticks[1][:rss_kb], ticks.first[:rss_kb], 0.2 * ticks.first[:rss_kb]
  end

  # The cgroup this process sits in, at the first tick and every CGROUP_EVERY seconds after, with how many of its
  # processes are the subject's tree (here: this process and whatever children it has at the time; in the whole
  # suite it once had one).
  def test_the_cgroup_is_read_at_the_first_tick_and_every_few_seconds_after
    skip "this process sits in no readable memory cgroup" unless Mallard::Probe::CgroupMemory.of(Process.pid)

    own_ticks([10.0, 11.0, 10.0 + Mallard::Probe::Sampler::CGROUP_EVERY])

    assert_equal([10.0, 12.0], cgroups.map { |record| record[:t] })
    tree = cgroups.map { |cgroup| @records.count { |record| record[:kind] == "memory" && record[:t] == cgroup[:t] } }

    assert_equal(tree, cgroups.map { |record| record[:tree_processes] })
    assert_operator cgroups.first[:processes], :>=, 1
    assert_operator cgroups.first[:usage_kb], :>, 0
  end

  def cgroups = @records.select { |record| record[:kind] == "cgroup" }

  # This process's memory record at each of the times, sampled by one sampler.
  def own_ticks(times)
    now = nil
    sampler = Mallard::Probe::Sampler.new(root_pid: Process.pid, writer: @records, clock: -> { now })
    times.map do |time|
      now = time
      sampler.sample
      @records.find { |record| record[:kind] == "memory" && record[:t] == time && record[:pid] == Process.pid }
    end
  end

  def test_a_tree_that_is_gone_writes_nothing
    sampler = Mallard::Probe::Sampler.new(root_pid: NO_SUCH_PID, writer: @records, clock: -> { 0.0 })

    assert_nil sampler.sample
    assert_empty @records
  end
end
