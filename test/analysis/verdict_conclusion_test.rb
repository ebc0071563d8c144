# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The soak verdict in two parts, joined: where growth comes from.
class VerdictConclusionTest < Minitest::Test
  include GcRuns
  Conclusion = Mallard::Analysis::VerdictConclusion

  def test_a_flat_app_under_rising_memory_is_not_a_leak_and_points_to_the_allocator
    decision = conclude(memory: "growing", live_set: "plateaued", app_held: "plateaued", held_kb: 31.8 * 1024)

    assert_equal %w[not_a_leak plateaued], [decision.overall, decision.app_own]
    assert_match(/Not a leak/, decision.conclusion)
    assert_match(/allocator is holding memory the app freed \(32 MiB so far\)/, decision.conclusion)
    assert_match(/mallard compare/, decision.conclusion)
  end

  def test_a_growing_live_set_points_to_the_app
    decision = conclude(memory: "plateaued", live_set: "growing")

    assert_equal "growing", decision.overall
    assert_match(/retains objects \(a cache or a leak\)/, decision.conclusion)
  end

  def test_growing_app_held_memory_is_growing_whatever_the_live_set
    decision = conclude(memory: "growing", live_set: "inconclusive", app_held: "growing")

    assert_equal "growing", decision.overall
    assert_match(/malloc in use; the live set is inconclusive/, decision.conclusion)
  end

  # The Rails 6.1 app of issue 39: RSS rose while its live set and malloc in use were both undecided. That is not
  # "growing": which part rose, and how far off a decision is, are said instead.
  def test_rising_memory_over_an_undecided_app_is_not_decided_and_says_what_would_decide_it
    decision = conclude(memory: "growing", live_set: "inconclusive", app_held: "inconclusive", live_needed: 4_000,
                        app_needed: 2_500, rising: "malloc held free", rate: 5.0)

    assert_equal %w[inconclusive inconclusive], [decision.overall, decision.app_own]
    assert_equal "malloc held free", decision.rising
    assert_equal 4_000, decision.decide_units
    assert_in_delta((4_000 - 450) / 5.0 / 60, decision.decide_minutes, 0.1)
    assert_match(/Not decided yet: Memory rises, most in malloc held free/, decision.conclusion)
    assert_match(/the live set and malloc in use\) is not decided/, decision.conclusion)
    assert_match(/about 4000 requests after warm-up would decide it, ~11\.8 minutes/, decision.conclusion)
  end

  def test_an_undecided_part_with_no_estimate_leaves_the_run_length_unknown
    decision = conclude(memory: "growing", live_set: "inconclusive", app_held: "inconclusive", live_needed: nil,
                        app_needed: 2_500)

    assert_nil decision.decide_units
    assert_match(/run longer, or use --until-decided/, decision.conclusion)
  end

  def test_a_bounded_app_still_settling_is_not_a_leak
    decision = conclude(memory: "inconclusive", live_set: "plateaued", app_held: "plateaued", memory_needed: 9_000)

    assert_equal "not_a_leak", decision.overall
    assert_equal 9_000, decision.decide_units
    assert_match(/allocator settling/, decision.conclusion)
  end

  def test_flat_memory_over_an_undecided_app_claims_only_that_memory_levelled_off
    decision = conclude(memory: "plateaued", live_set: "inconclusive")

    assert_equal "plateaued", decision.overall
    assert_match(/app's own memory is not decided yet/, decision.conclusion)
  end

  def test_without_anything_inside_the_subject_memory_speaks_and_says_what_it_cannot
    decision = conclude(memory: "growing", live_set: nil)

    assert_equal "growing", decision.overall
    assert_nil decision.app_own
    assert_match(/was not measured \(no agent/, decision.conclusion)
  end

  def test_a_script_is_judged_on_its_live_set
    assert_equal "plateaued", conclude(memory: nil, live_set: "plateaued").overall
    assert_equal "inconclusive", conclude(memory: nil, live_set: "inconclusive").overall
  end

  def test_the_summary_carries_both_parts_and_round_trips
    random = Random.new(5)
    rising = ticks(61, rss: ->(i) { 80_000 + (300 * i) })
    events = major_events(30, live: ->(_i) { 300_000 + random.rand(-1000..1000) }, pause: ->(_i) { 5 + random.rand })
    agent = agent_records(61, old: ->(_i) { 250_000 })
    summary = Mallard::Analysis::SoakSummary.call(gc_run(totals: rising, events: events, agent: agent))

    assert_equal "gc", summary.kind
    assert_equal %w[growing plateaued not_a_leak], [summary.verdict.memory, summary.verdict.live_set,
                                                    summary.verdict.overall]
    assert_match(/allocator/, summary.verdict.conclusion)
    assert_round_trips(summary)
  end

  private

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
