# frozen_string_literal: true

require "test_helper"
require "rbconfig"

# Mallard::Agent::BootReading in a real Ruby process: the malloc it reads is malloc's beyond Ruby's heap pages, so
# heap pages the Ruby maps directly (not through malloc) are not taken out of it.
class AgentBootReadingTest < Minitest::Test
  LIB = File.join(Processes::ROOT, "lib")
  OBJECTS = 500_000
  # Malloc beyond the heap pages, and the heap pages' bytes, before and after OBJECTS objects that are kept.
  PROBE = <<~RUBY.freeze
    require "mallard/agent/boot_reading"
    require "mallard/agent/malloc_stats"
    reading = Mallard::Agent::BootReading.new
    page = GC::INTERNAL_CONSTANTS[:HEAP_PAGE_SIZE]
    GC.start
    before = [reading.to_a[4], GC.stat(:heap_allocated_pages) * page]
    kept = Array.new(#{OBJECTS}) { Object.new }
    after = [reading.to_a[4], GC.stat(:heap_allocated_pages) * page]
    puts [*before, *after, kept.size].join(" ")
  RUBY

  def setup
    skip "mallard/malloc_stats_ext is not built (rake compile)" unless
      File.file?(File.join(LIB, "mallard/malloc_stats_ext.#{RbConfig::CONFIG['DLEXT']}"))
  end

  # Kept objects add heap pages (about 20 MB for 500,000) and a little malloc (the pages' headers, the Array):
  # malloc beyond the pages must not fall by the pages' size, as it did when 3.1's mapped pages were subtracted.
  def test_new_heap_pages_do_not_shrink_malloc_beyond_them
    malloc_before, pages_before, malloc_after, pages_after = probe

    assert_operator pages_after - pages_before, :>, 10_000_000, "the objects took new heap pages"
    assert_operator malloc_after, :>=, malloc_before, "malloc beyond the heap pages fell as the pages grew"
    assert_operator malloc_after - malloc_before, :<, (pages_after - pages_before) / 2,
                    "no more than the pages' headers and the Array"
  end

  private

  def probe
    env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil)
    out, err, status = Timeout.timeout(Processes::TEST_TIMEOUT) do
      Open3.capture3(env, Gem.ruby, "-I", LIB, "-e", PROBE)
    end
    assert_predicate status, :success?, err
    out.split.map { |figure| Integer(figure) }.first(4)
  end
end
