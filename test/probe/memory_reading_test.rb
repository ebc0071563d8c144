# frozen_string_literal: true

require "test_helper"

class MemoryReadingTest < Minitest::Test
  FIXTURE = File.expand_path("../fixtures/proc/smaps_rollup", __dir__)

  def test_reads_rss_pss_uss_and_swap_from_smaps_rollup
    reading = Mallard::Probe::MemoryReading.parse(File.read(FIXTURE))

    assert_equal({ rss_kb: 42_000, pss_kb: 30_500, uss_kb: 28_000, swap_kb: 512 }, reading.to_h)
  end

  def test_sums_the_records_of_per_mapping_smaps
    mapping = "Rss: 100 kB\nPss: 60 kB\nPrivate_Clean: 10 kB\nPrivate_Dirty: 20 kB\nSwap: 0 kB\n"
    reading = Mallard::Probe::MemoryReading.parse("55-56 r-xp 0 0:0 0 /lib/x.so\n#{mapping}" * 3)

    assert_equal({ rss_kb: 300, pss_kb: 180, uss_kb: 90, swap_kb: 0 }, reading.to_h)
  end

  def test_ignores_fields_that_are_not_sizes
    reading = Mallard::Probe::MemoryReading.parse("Rss: 8 kB\nTHPeligible: 0\nVmFlags: rd mr\n")

    assert_equal 8, reading.rss_kb
  end
end
