# frozen_string_literal: true

require "test_helper"
require "mallard/agent/mappings"

# The mappings' reading on a hand-built smaps (test/fixtures/proc/smaps/ruby), one mapping of each kind the reader
# tells apart, and on this process's own.
class MappingsTest < Minitest::Test
  Mappings = Mallard::Agent::Mappings
  FIXTURE = File.expand_path("../fixtures/proc/smaps/ruby", __dir__)

  # The stacks are the thread's (above its guard page) and the main thread's [stack]; not the arena heap above
  # the previous heap's small reserve (it starts at a 64 MiB boundary), nor the mapping right after a stack.
  def test_stacks_and_pss_from_a_smaps
    assert_equal({ "stacks_kb" => 40 + 60, "stacks_pss_kb" => 20 + 60, "pss_kb" => 100 + 3000 + 132 + 20 + 500 + 60,
                   "file_pss_kb" => 100 }, Mappings.read(FIXTURE))
  end

  # Each thread adds a stack; the totals are the kernel's own (smaps_rollup) within what changed between reads.
  def test_this_process_has_a_stack_per_thread_and_its_pss_is_the_kernels
    before = Mappings.read
    threads = Array.new(4) { Thread.new { sleep } }
    Thread.pass until threads.all? { |thread| thread.status == "sleep" }
    after = Mappings.read
    rollup = File.read("/proc/self/smaps_rollup")[/^Pss:\s+(\d+)/, 1].to_i

    assert_operator after["stacks_kb"], :>=, before["stacks_kb"] + 4, "a touched page per new thread at least"
    assert_in_delta rollup, after["pss_kb"], 0.05 * rollup
  ensure
    threads&.each(&:kill)
  end

  def test_no_smaps_is_nil
    assert_nil Mappings.read("/proc/self/no-such-file")
  end
end
