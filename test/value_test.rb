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

  def test_a_value_is_frozen_once_built_and_with_gives_a_changed_copy
    phases = Mallard::Run::Phases.start
    later = phases.with(up_t: 1.5)

    assert_predicate phases, :frozen?
    assert_raises(FrozenError) { phases.up_t = 2.0 }
    assert_nil phases.up_t
    assert_equal [1.5, phases.started_at, phases.outcome], [later.up_t, later.started_at, later.outcome]
    assert_predicate later, :frozen?
    assert_raises(ArgumentError) { phases.with(upt: 1.0) }
  end

  # A list of values not given is empty, as a reloaded one's is: the same value live and from summary.json.
  def test_a_list_not_given_is_empty_as_when_reloaded
    row = Mallard::Summary::Row.new(name: "glibc")

    assert_equal [[], [], []], [row.runs, row.invalid_runs, row.settings_checks]
    assert_equal row, Mallard::Summary::Row.from_h(JSON.parse(JSON.generate(row.to_h)))
  end

  def test_a_frozen_value_and_its_copies_round_trip_through_json
    summary = Mallard::Summary::Soak.from_h(JSON.parse(File.read(STORED)))
    interrupted = summary.with(status: "interrupted", verdict: summary.verdict.with(memory: "inconclusive"))

    assert_predicate summary.verdict, :frozen?
    assert_equal summary, Mallard::Summary::Soak.from_h(JSON.parse(JSON.generate(summary.to_h)))
    assert_equal interrupted, Mallard::Summary::Soak.from_h(JSON.parse(JSON.generate(interrupted.to_h)))
    assert_equal %w[complete growing], [summary.status, summary.verdict.memory]
    assert_equal summary.to_h.merge(status: "interrupted").except(:verdict), interrupted.to_h.except(:verdict)
  end

  def test_a_reloaded_value_writes_the_new_key_only
    hash = Mallard::Summary::Diff.from_h("method" => "Welch's t").to_h

    assert_equal "Welch's t", hash[:methodology]
    refute hash.key?(:method)
  end
end
