# frozen_string_literal: true

require "test_helper"

# How to read a boot's surprising figures: a line for each kind of surprise the boot holds, none for the others.
class BootReadingTest < Minitest::Test
  BootReading = Mallard::Analysis::BootReading
  Summary = Mallard::Summary

  def node(rss_kb:, uncertain: false, children: [])
    Summary::BootNode.new(name: "x", rss_kb: rss_kb, self_kb: rss_kb, uncertain: uncertain, children: children,
                          parts: Summary::BootParts.new(heap_kb: 10, malloc_kb: 10))
  end

  def gem(objects:, retained:)
    Summary::BootGem.new(name: "psych", rss_kb: 700, uncertain: false, objects: objects, retained_objects: retained)
  end

  def test_an_ordinary_boot_needs_no_reading
    assert_empty BootReading.call([node(rss_kb: 900, children: [node(rss_kb: 400)])], [gem(objects: 10, retained: 5)])
  end

  def test_each_surprise_is_explained_once_wherever_it_is
    tree = [node(rss_kb: 900, children: [node(rss_kb: -300), node(rss_kb: 20, uncertain: true)])]
    lines = BootReading.call(tree, [gem(objects: 9_787, retained: 46_990)])

    assert_equal [BootReading::NEGATIVE, BootReading::UNCERTAIN], lines.first(2)
    assert_match(/\AMore objects retained than allocated \(psych\): .*YAML loading/, lines.last)
    assert_equal 3, lines.size
  end

  # -0.04 MiB is shown as 0.0: nothing to explain.
  def test_a_rounding_wobble_is_not_negative
    assert_empty BootReading.call([node(rss_kb: -40)], [])
  end
end
