# frozen_string_literal: true

require "test_helper"

# What --memory-limit's sizes mean: binary units, as Docker and a cgroup read them, in KiB.
class MemorySizeTest < Minitest::Test
  def test_a_size_is_binary_and_read_in_kib
    assert_equal 600 * 1024, Mallard::MemorySize.kb("600M")
    assert_equal 2 * 1024 * 1024, Mallard::MemorySize.kb("2G")
    assert_equal 1024**3, Mallard::MemorySize.kb("1T")
    assert_equal 1536 * 1024, Mallard::MemorySize.kb("1.5g")
    assert_equal 2048, Mallard::MemorySize.kb("2048K")
  end

  def test_kubernetes_and_byte_suffixes_read_the_same
    %w[600Mi 600MiB 600MB 600m].each { |text| assert_equal 600 * 1024, Mallard::MemorySize.kb(text), text }
  end

  def test_a_plain_number_is_bytes
    assert_equal 1024, Mallard::MemorySize.kb("1048576")
  end

  def test_no_size_or_one_out_of_range_is_nil
    [nil, "", "M", "600X", "-1G", "1e9", "0", "512K", "2T", "600 M"].each do |text|
      assert_nil Mallard::MemorySize.kb(text), text.inspect
    end
  end
end
