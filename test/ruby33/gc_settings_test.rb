# frozen_string_literal: true

require "test_helper"
require_relative "../support/rubies"

# Analysis::GcSettings' list for 3.3 against a real 3.3.8: the variables its gc.c reads, and what the heap does
# with RUBY_GC_HEAP_INIT_SLOTS (ignored) and with a per-pool variable (read).
class Ruby33GcSettingsTest < Minitest::Test
  SLOTS = 400_000

  def test_the_variables_3_3_reads_are_the_ones_mallard_says_it_reads
    gc_c = File.join(File.dirname(Rubies.path(Rubies::STOCK), 3), "src", "ruby-3.3.8", "gc.c")
    read = File.read(gc_c).scan(/"(RUBY_GC_[A-Z0-9_]+)"/).flatten.uniq - ["RUBY_GC_HEAP_"]
    read += (0..4).map { |pool| "RUBY_GC_HEAP_#{pool}_INIT_SLOTS" } if File.read(gc_c).include?("RUBY_GC_HEAP_%d_INIT")

    read.each { |name| assert_nil unread(name), name }
    assert_equal "per_pool", unread("RUBY_GC_HEAP_INIT_SLOTS")
    refute_includes read, "RUBY_GC_HEAP_INIT_SLOTS"
  end

  # 300,000 small objects: about 18 GCs on 3.3's default heap, a couple with pool 0 sized for them up front.
  def test_a_real_3_3_ignores_init_slots_and_reads_the_per_pool_variable
    default = gc_count({})

    assert_operator gc_count("RUBY_GC_HEAP_0_INIT_SLOTS" => SLOTS.to_s), :<, default / 3
    assert_equal default, gc_count("RUBY_GC_HEAP_INIT_SLOTS" => SLOTS.to_s)
  end

  private

  def unread(name)
    settings = Mallard::Run::GcSettings.new(ruby_version: "3.3.8", env: { name => "1" })
    Mallard::Analysis::GcSettings.call(settings).first.unread
  end

  def gc_count(env)
    out, err, status = Open3.capture3(Rubies.env(Rubies::STOCK).merge(env), Rubies.path(Rubies::STOCK),
                                      "-e", "a = Array.new(300_000) { Object.new }; print GC.count")
    assert_predicate status, :success?, err
    Integer(out)
  end
end
