# frozen_string_literal: true

require "test_helper"

class LayoutTest < Minitest::Test
  Layout = Mallard::Cpus::Layout

  def test_by_default_the_subject_has_every_cpu_shared_with_the_load
    layout = Layout.choose(nil, available: [0, 1])

    refute layout.pinned
    assert_equal [[0, 1], [0, 1]], layout.to_h.values_at(:subject, :load)
    assert_match(/CPUs: 2 \(0-1\), shared by the subject and the load/, layout.description)
    assert_equal layout.to_h, Layout.choose("all", available: [0, 1]).to_h
  end

  def test_a_count_gives_the_subject_that_many_and_the_load_the_rest
    assert_equal [[3], [0, 1, 2]], chosen("1", (0..3).to_a)
    assert_equal [[2, 3], [0, 1]], chosen("2", (0..3).to_a)
    refute Layout.choose("4", available: (0..3).to_a).pinned, "all of them: nothing is left for the load"
  end

  def test_split_gives_the_load_a_quarter_and_at_least_one_cpu
    assert_equal [[1], [0]], chosen("split", [0, 1])
    assert_equal [[1, 2, 3], [0]], chosen("split", [0, 1, 2, 3])
    assert_equal [[2, 3, 4, 5, 6, 7], [0, 1]], chosen("split", (0..7).to_a)
  end

  def test_one_cpu_cannot_be_split_and_says_so
    layout = Layout.choose("split", available: [3])

    refute layout.pinned
    assert_match(/only 1 CPU is available/, layout.description)
  end

  def test_wherever_the_subject_is_confined_the_line_says_it_fragments_less
    assert_match(/fragments glibc less than it does in production/, Layout.choose("1:0", available: [0, 1]).description)
    refute_match(/fragments/, Layout.choose(nil, available: [0, 1]).description)
  end

  def test_lists_are_read_and_written_as_the_kernel_writes_them
    assert_equal [0, 1, 2, 5], Layout.parse_list("0-2,5")
    assert_equal "0-2,5", Layout.format_list([5, 0, 2, 1])
    assert_equal [[2, 3], [0, 1]], chosen("2-3:0-1", (0..3).to_a)
  end

  def test_a_choice_that_cannot_be_honoured_is_a_usage_error
    { "0:0" => /share CPU 0/, "1:4" => /CPU 4 is not available/, "3" => /only 2 CPUs are available/,
      "0" => /a count \(e.g. 4\), split/, "a:b" => /not a CPU list/, "1:" => /not a CPU list/,
      "1-2" => /a count/ }.each do |spec, message|
      error = assert_raises(Mallard::UsageError, spec) { Layout.choose(spec, available: [0, 1]) }
      assert_match message, error.message
    end
  end

  def test_a_stored_layout_reads_back_the_same
    layout = Layout.choose("1:0", available: [0, 1])

    assert_equal layout, Layout.from_h(JSON.parse(JSON.generate(layout.to_h)))
  end

  private

  def chosen(spec, available)
    Layout.choose(spec, available: available).to_h.values_at(:subject, :load)
  end
end
