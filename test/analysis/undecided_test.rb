# frozen_string_literal: true

require "test_helper"

# What keeps `soak --until-decided` loading.
class UndecidedTest < Minitest::Test
  Undecided = Mallard::Analysis::Undecided
  LiveSet = Mallard::Analysis::LiveSet

  def test_a_growing_app_is_decided_whatever_memory_says
    assert_empty Undecided.call(summary(overall: "growing", memory: "inconclusive", live_set: live("growing")))
  end

  def test_memory_the_live_set_and_malloc_in_use_each_need_a_verdict
    still = Undecided.call(summary(memory: "inconclusive", needed: 9_000, app_held: "inconclusive",
                                   live_set: live("inconclusive", needed: 4_000)))

    named = still.map { |part| [part.name, part.needed] }

    assert_equal [["memory", 9_000], ["the live set", 4_000], ["malloc in use", nil]], named
    assert_equal ["requests"], still.map(&:unit).uniq
  end

  def test_a_live_set_decided_on_a_stand_in_waits_for_exact_readings
    still = Undecided.call(summary(memory: "growing", app_held: "plateaued",
                                   live_set: live("plateaued", measure: LiveSet::OLD_OBJECTS)))

    assert_equal [Undecided::EXACT], still.map(&:name)
  end

  def test_everything_decided_is_decided
    assert_empty Undecided.call(summary(memory: "growing", app_held: "plateaued", live_set: live("plateaued")))
    assert_empty Undecided.call(summary(memory: "plateaued", live_set: nil))
  end

  def test_no_verdict_yet_is_undecided
    assert_equal [Undecided::VERDICT], Undecided.call(Mallard::Summary::Soak.new).map(&:name)
  end

  private

  def summary(memory:, live_set:, overall: "inconclusive", app_held: nil, needed: nil)
    verdict = Mallard::Summary::Verdict.new(memory: memory, overall: overall, app_held: app_held,
                                            requests_needed: needed)
    Mallard::Summary::Soak.new(verdict: verdict, live_set: live_set)
  end

  def live(verdict, needed: nil, measure: LiveSet::AFTER_MAJOR)
    Mallard::Summary::LiveSet.new(verdict: verdict, needed: needed, measure: measure)
  end
end
