# frozen_string_literal: true

require "test_helper"
require "json"

# Values reload from the JSON a summary was stored as, including what an earlier mallard wrote.
class ValueTest < Minitest::Test
  STORED = File.expand_path("fixtures/runs/soak-leaky/summary.json", __dir__)

  def test_a_summary_stored_with_the_old_method_key_loads_it_as_methodology
    stored = JSON.parse(File.read(STORED))
    assert stored["verdict"].key?("method"), "the fixture was written before the rename"

    summary = Mallard::Summary::Soak.from_h(stored)

    assert_equal stored.dig("verdict", "method"), summary.verdict.methodology
  end

  def test_the_current_key_wins_over_the_old_one_and_both_key_styles_load
    both = { "methodology" => "now", "method" => "before" }

    assert_equal "now", Mallard::Summary::Heap.from_h(both).methodology
    assert_equal "before", Mallard::Summary::Fleet.from_h(method: "before").methodology
  end

  def test_a_reloaded_value_writes_the_new_key_only
    hash = Mallard::Summary::Diff.from_h("method" => "Welch's t").to_h

    assert_equal "Welch's t", hash[:methodology]
    refute hash.key?(:method)
  end
end
