# frozen_string_literal: true

require "test_helper"

class LayoutTest < Minitest::Test
  Layout = Mallard::Cpus::Layout

  def test_the_default_gives_the_load_a_quarter_and_at_least_one_cpu
    assert_equal [[1], [0]], split([0, 1])
    assert_equal [[1, 2, 3], [0]], split([0, 1, 2, 3])
    assert_equal [[2, 3, 4, 5, 6, 7], [0, 1]], split((0..7).to_a)
  end

  def test_one_cpu_cannot_be_split_and_says_so
    layout = Layout.choose(nil, available: [3])

    refute layout.pinned
    assert_match(/only 1 CPU is available/, layout.description)
  end

  def test_lists_are_read_and_written_as_the_kernel_writes_them
    assert_equal [0, 1, 2, 5], Layout.parse_list("0-2,5")
    assert_equal "0-2,5", Layout.format_list([5, 0, 2, 1])
    assert_equal [[2, 3], [0, 1]], Layout.choose("2-3:0-1", available: (0..3).to_a).to_h.values_at(:subject, :load)
  end

  def test_a_choice_that_cannot_be_honoured_is_a_usage_error
    { "0:0" => /share CPU 0/, "1:4" => /CPU 4 is not available/, "1" => /SUBJECT:LOAD/, "a:b" => /not a CPU list/,
      "1:" => /not a CPU list/ }.each do |spec, message|
      error = assert_raises(Mallard::UsageError, spec) { Layout.choose(spec, available: [0, 1]) }
      assert_match message, error.message
    end
  end

  def test_off_is_a_choice_recorded_as_such
    assert_equal "not pinning CPUs: --cpus off", Layout.choose("off", available: [0, 1]).description
  end

  private

  def split(available)
    Layout.choose(nil, available: available).to_h.values_at(:subject, :load)
  end
end
