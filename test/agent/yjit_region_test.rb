# frozen_string_literal: true

require "test_helper"
require "mallard/agent/yjit_region"

# The code region YJIT reserved, from a process's maps: anonymous code, then the rest of the reservation, no gap.
class YjitRegionTest < Minitest::Test
  YjitRegion = Mallard::Agent::YjitRegion

  # Ruby 3.3.8 under --yjit-exec-mem-size=32, cut down: 11 pages of code, then 32 MiB less them still reserved.
  MAPS = <<~MAPS
    5559350ee000-5559350ef000 r-xp 00001000 fe:00 1048581                    /opt/ruby/bin/ruby
    7f84631bf000-7f84631c0000 ---p 00000000 00:00 0
    7f84631c0000-7f8463261000 rw-p 00000000 00:00 0
    7f847f386000-7f847f391000 r-xp 00000000 00:00 0
    7f847f391000-7f8481386000 ---p 00000000 00:00 0
    7f8481386000-7f8481387000 r--p 00000000 fe:00 355428                     /usr/lib/libc.so.6
    7fcdabd67000-7fcdabd69000 r-xp 00000000 00:00 0                          [vdso]
  MAPS

  def test_the_span_from_yjits_code_to_the_end_of_its_reservation
    assert_equal 32 * 1024 * 1024, YjitRegion.bytes(MAPS)
  end

  # A code GC returns pages to inaccessible between pages of code; a small trampoline elsewhere is not the region.
  def test_pages_freed_between_code_stay_in_the_span_and_the_longest_span_is_yjits
    maps = <<~MAPS
      7f0000000000-7f0000001000 r-xp 00000000 00:00 0
      7f0000001000-7f0000002000 ---p 00000000 00:00 0
      7f1000000000-7f1000002000 r-xp 00000000 00:00 0
      7f1000002000-7f1000003000 ---p 00000000 00:00 0
      7f1000003000-7f1000004000 r-xp 00000000 00:00 0
      7f1000004000-7f1001000000 ---p 00000000 00:00 0
    MAPS

    assert_equal 16 * 1024 * 1024, YjitRegion.bytes(maps)
  end

  def test_a_gap_or_another_mapping_ends_the_span
    maps = <<~MAPS
      7f1000000000-7f1000001000 r-xp 00000000 00:00 0
      7f1000002000-7f1001000000 ---p 00000000 00:00 0
    MAPS

    assert_equal 4096, YjitRegion.bytes(maps)
  end

  def test_without_anonymous_code_there_is_no_region
    assert_nil YjitRegion.bytes(MAPS.lines.reject { |line| line.start_with?("7f847f386000") }.join)
    assert_nil YjitRegion.read("/nonexistent/maps")
  end

  # Ruby 3.4 names its mappings.
  def test_a_mapping_named_for_yjit_counts_as_anonymous
    maps = "7f1000000000-7f1000001000 r-xp 00000000 00:00 0    [anon:Ruby:rb_yjit_reserve_addr_space]\n" \
           "7f1000001000-7f1000100000 ---p 00000000 00:00 0    [anon:Ruby:rb_yjit_reserve_addr_space]\n"

    assert_equal 1024 * 1024, YjitRegion.bytes(maps)
  end
end
