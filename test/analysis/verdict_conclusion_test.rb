# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The soak verdict in two parts, joined: where growth comes from, as data (the overall word and which case it is).
# No sentence is made here (VerdictSentencesTest words the same cases).
class VerdictConclusionTest < Minitest::Test
  include GcRuns
  Conclusion = Mallard::Analysis::VerdictConclusion

  def test_a_flat_app_under_rising_memory_is_not_a_leak_and_points_to_the_allocator
    decision = conclude(memory: "growing", live_set: "plateaued", app_held: "plateaued", held_kb: 31.8 * 1024)

    assert_equal %w[not_a_leak allocator_holds plateaued], [decision.overall, decision.finding, decision.app_own]
    assert_no_sentence decision
  end

  def test_a_growing_live_set_points_to_the_app
    decision = conclude(memory: "plateaued", live_set: "growing")

    assert_equal %w[growing live_set_ahead], [decision.overall, decision.finding]
    assert_equal "both_grow", conclude(memory: "growing", live_set: "growing").finding
  end

  def test_growing_app_held_memory_is_growing_whatever_the_live_set
    decision = conclude(memory: "growing", live_set: "inconclusive", app_held: "growing")

    assert_equal %w[growing app_grows], [decision.overall, decision.finding]
  end

  # The Rails 6.1 app of issue 39: RSS rose while its live set and malloc in use were both undecided. That is not
  # "growing": which part rose, and how far off a decision is, are said instead.
  def test_rising_memory_over_an_undecided_app_is_not_decided_and_says_what_would_decide_it
    decision = conclude(memory: "growing", live_set: "inconclusive", app_held: "inconclusive", live_needed: 4_000,
                        app_needed: 2_500, rising: "malloc held free", rate: 5.0)

    assert_equal %w[inconclusive undecided inconclusive], [decision.overall, decision.finding, decision.app_own]
    assert_equal "malloc held free", decision.rising
    assert_equal 4_000, decision.decide_units
    assert_in_delta 11.8, decision.decide_minutes
    assert_no_sentence decision
  end

  def test_an_undecided_part_with_no_estimate_leaves_the_run_length_unknown
    decision = conclude(memory: "growing", live_set: "inconclusive", app_held: "inconclusive", live_needed: nil,
                        app_needed: 2_500)

    assert_equal "undecided", decision.finding
    assert_nil decision.decide_units
    assert_nil decision.decide_minutes
  end

  def test_a_bounded_app_still_settling_is_not_a_leak
    decision = conclude(memory: "inconclusive", live_set: "plateaued", app_held: "plateaued", memory_needed: 9_000)

    assert_equal %w[not_a_leak allocator_settling], [decision.overall, decision.finding]
    assert_equal 9_000, decision.decide_units
    assert_nil decision.rising
  end

  def test_flat_memory_over_an_undecided_app_claims_only_that_memory_levelled_off
    decision = conclude(memory: "plateaued", live_set: "inconclusive")

    assert_equal %w[plateaued app_undecided], [decision.overall, decision.finding]
  end

  def test_without_anything_inside_the_subject_memory_speaks_and_says_what_it_cannot
    decision = conclude(memory: "growing", live_set: nil)

    assert_equal %w[growing unmeasured], [decision.overall, decision.finding]
    assert_nil decision.app_own
    assert_nil conclude(memory: nil, live_set: nil).finding
  end

  def test_a_script_is_judged_on_its_live_set
    assert_equal(%w[plateaued inconclusive growing].zip(%w[script_bounded live_set_undecided live_set_grows]),
                 %w[plateaued inconclusive growing].map do |live_set|
                   conclude(memory: nil, live_set: live_set).to_h.values_at(:overall, :finding)
                 end)
  end

  def test_the_summary_carries_both_parts_and_round_trips
    random = Random.new(5)
    rising = ticks(61, rss: ->(i) { 80_000 + (300 * i) })
    events = major_events(30, live: ->(_i) { 300_000 + random.rand(-1000..1000) }, pause: ->(_i) { 5 + random.rand })
    agent = agent_records(61, old: ->(_i) { 250_000 })
    summary = Mallard::Analysis::SoakSummary.call(gc_run(totals: rising, events: events, agent: agent))

    assert_equal "gc", summary.kind
    assert_equal %w[growing plateaued not_a_leak allocator_holds],
                 summary.verdict.to_h.values_at(:memory, :live_set, :overall, :finding)
    assert_round_trips(summary)
  end

  private

  # Every string of a decision is a word of a closed set or a part's name, never a sentence.
  def assert_no_sentence(decision)
    said = decision.to_h.except(:rising).values.grep(String)
    assert_empty said.grep(/\s/), "a decision holds words, not sentences"
  end

  # One soak's parts, as the summary holds them: a memory verdict over 450 requests, a live set and a ledger.
  def conclude(memory:, live_set:, app_held: nil, held_kb: nil, live_needed: nil, app_needed: nil, memory_needed: nil,
               rising: nil, rate: nil)
    verdict = memory && Mallard::Summary::Verdict.new(memory: memory, requests_observed: 450,
                                                      requests_needed: memory_needed)
    live = live_set && Mallard::Summary::LiveSet.new(verdict: live_set, needed: live_needed)
    Conclusion.call(memory: verdict, live_set: live, ledger: ledger(app_held, held_kb, app_needed, rising), rate: rate)
  end

  def ledger(app_held, held_kb, app_needed, rising)
    return unless app_held

    parts = [Mallard::Summary::LedgerPart.new(name: "ruby live objects", slope: 0.5, verdict: "inconclusive")]
    parts << Mallard::Summary::LedgerPart.new(name: rising, slope: 6.0, verdict: "inconclusive") if rising
    Mallard::Analysis::Ledger::Result.new(app_held: app_held, headroom_kb: held_kb, app_needed: app_needed,
                                          ledger: Mallard::Summary::Ledger.new(parts: parts))
  end

  def assert_round_trips(summary)
    reloaded = Mallard::Summary::Soak.from_h(JSON.parse(JSON.generate(summary.to_h)))

    assert_equal summary.to_h, reloaded.to_h
    %w[verdict.live_set live_set.slope live_set.ci gc.runs gc.major gc.minor gc.pause_ms.p50 gc.pause_ms.p99
       gc.pause_ms.max gc.wall_share gc.major_time_vs_live_set.ci].each do |key|
      refute_nil reloaded.to_h.dig(*key.split(".").map(&:to_sym)), key
    end
  end
end
