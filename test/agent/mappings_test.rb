# frozen_string_literal: true

require "test_helper"
require "mallard/agent/mappings"

# The mappings' reading on a hand-built smaps (test/fixtures/proc/smaps/ruby), one mapping of each kind the reader
# tells apart, and on this process's own.
class MappingsTest < Minitest::Test
  Mappings = Mallard::Agent::Mappings
  FIXTURE = File.expand_path("../fixtures/proc/smaps/ruby", __dir__)

  # The stacks are the thread's (above its guard page) and the main thread's [stack]; not the arena heap above
  # the previous heap's small reserve (it starts at a 64 MiB boundary), nor the mapping right after a stack. The
  # transient heap is the anonymous mapping of exactly 32 MiB.
  def test_stacks_transient_heap_and_pss_from_a_smaps
    assert_equal({ "stacks_kb" => 40 + 60, "stacks_pss_kb" => 20 + 60, "transient_heap_kb" => 4000,
                   "transient_heap_pss_kb" => 2000, "pss_kb" => 100 + 3000 + 132 + 20 + 500 + 2000 + 60,
                   "file_pss_kb" => 100 }, Mappings.read(FIXTURE))
  end

  # Ruby 3.1 and 3.2 map a transient heap, whose touched blocks young arrays' buffers fill; 3.3 has none.
  def test_a_rubys_transient_heap_where_it_has_one
    out, err, status = Open3.capture3(Gem.ruby, "-I#{File.expand_path('../../lib', __dir__)}", "-e", <<~'RUBY')
      require "mallard/agent/mappings"
      kept = Array.new(20_000) { Array.new(8, 1) }
      puts [Mallard::Agent::Mappings.read["transient_heap_kb"].inspect, kept.size].join(" ")
    RUBY
    assert status.success?, err
    transient_kb = Integer(out.split.first, exception: false)

    if RUBY_VERSION < "3.3"
      assert_operator transient_kb, :>=, 1024, "20,000 arrays' buffers of 64 bytes"
    else
      assert_nil transient_kb
    end
  end

  # In a fresh Ruby (no stacks cached from threads that ended), each thread that recurses deeply adds its touched
  # stack; the PSS is the kernel's own (smaps_rollup) within what changed between the two reads.
  def test_a_ruby_has_a_stack_per_thread_and_its_pss_is_the_kernels
    out, err, status = Open3.capture3(Gem.ruby, "-I#{File.expand_path('../../lib', __dir__)}", "-e", <<~'RUBY')
      require "mallard/agent/mappings"
      def deep(depth) = depth.zero? ? 0 : deep(depth - 1) + 1
      before = Mallard::Agent::Mappings.read
      threads = Array.new(4) { Thread.new { deep(2_000) && sleep } }
      Thread.pass until threads.all? { |thread| thread.status == "sleep" }
      after = Mallard::Agent::Mappings.read
      rollup = File.read("/proc/self/smaps_rollup")[/^Pss:\s+(\d+)/, 1]
      puts [before["stacks_kb"], after["stacks_kb"], after["pss_kb"], rollup].join(" ")
    RUBY
    assert status.success?, err
    before, after, pss, rollup = out.split.map(&:to_i)

    assert_operator after, :>=, before + (4 * 16), "each new thread's touched stack"
    assert_in_delta rollup, pss, 0.05 * rollup
  end

  def test_no_smaps_is_nil
    assert_nil Mappings.read("/proc/self/no-such-file")
  end
end
