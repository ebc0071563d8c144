# frozen_string_literal: true

require "test_helper"

# The words of a soak's verdict (Analysis::VerdictConclusion's cases, decided in its own test): each finding worded by
# the presenter alone, and a verdict stored with its sentence shown as it was.
class VerdictSentencesTest < Minitest::Test
  Conclusion = Mallard::Analysis::VerdictConclusion

  def test_a_flat_app_under_rising_memory_points_to_the_allocator_and_says_how_much_it_holds
    said = conclusion(memory: "growing", live_set: "plateaued", app_held: "plateaued", held_kb: 31.8 * 1024)

    assert_equal "Not a leak: the app's own memory is flat while memory rises — the allocator is holding memory the " \
                 "app freed (32 MiB so far); try `mallard compare` (e.g. glibc-arena2, jemalloc) to see whether " \
                 "another allocator gives it back.", said
    assert_match(/memory the app freed \(fragmentation\); try/,
                 conclusion(memory: "growing", live_set: "plateaued", app_held: "plateaued", held_kb: 512))
  end

  def test_growth_of_the_app_says_it_retains_objects_or_memory
    assert_equal "The live set grows while memory is plateaued so far: the app retains objects (a cache or a leak), " \
                 "and memory will follow.", conclusion(memory: "plateaued", live_set: "growing")
    assert_equal "Memory and the live set both grow: the app retains objects (a cache or a leak).",
                 conclusion(memory: "growing", live_set: "growing")
    assert_match(/\AThe app's own memory grows \(malloc in use; the live set is inconclusive\): it retains memory/,
                 conclusion(memory: "growing", live_set: "inconclusive", app_held: "growing"))
    assert_match(/\(malloc in use; the live set is not read\)/,
                 conclusion(memory: "growing", live_set: nil, app_held: "growing"))
  end

  # The Rails 6.1 app of issue 39: which part rose, what is undecided, and how far off a decision is.
  def test_an_undecided_run_says_which_part_rises_and_what_would_decide_it
    said = conclusion(memory: "growing", live_set: "inconclusive", app_held: "inconclusive", live_needed: 4_000,
                      app_needed: 2_500, rising: "malloc held free", rate: 5.0)

    assert_equal "Not decided yet: Memory rises, most in malloc held free, and the app's own memory (the live set " \
                 "and malloc in use) is not decided; about 4,000 requests after warm-up would decide it, ~11.8 " \
                 "minutes at this rate (--until-decided).", said
    assert_match(/is not decided; run longer, or use --until-decided\.\z/,
                 conclusion(memory: "growing", live_set: "inconclusive", app_held: "inconclusive", app_needed: 2_500))
  end

  def test_the_settled_unmeasured_and_script_cases
    assert_match(/allocator settling \(9 MiB so far\) — run longer/,
                 conclusion(memory: "inconclusive", live_set: "plateaued", app_held: "plateaued", held_kb: 9 * 1024))
    assert_match(/\AMemory levelled off; the app's own memory is not decided yet/,
                 conclusion(memory: "plateaued", live_set: "inconclusive"))
    assert_match(/\AMemory growing; the app's own memory was not measured \(no agent/,
                 conclusion(memory: "growing", live_set: nil))
    assert_equal "The live set has levelled off: the script retains nothing more.",
                 conclusion(memory: nil, live_set: "plateaued")
    assert_equal "Memory and the app's own memory both levelled off: the app is bounded.",
                 conclusion(memory: "plateaued", live_set: "plateaued")
    assert_nil Mallard::Report::VerdictSentences.new(nil).conclusion
  end

  def test_a_verdict_stored_with_its_sentence_shows_it
    stored = Mallard::Summary::Verdict.from_h("memory" => "growing", "overall" => "growing",
                                              "conclusion" => "Memory grows, as an older mallard put it.")

    assert_equal "Memory grows, as an older mallard put it.", Mallard::Report::VerdictSentences.new(stored).conclusion
  end

  private

  # The presenter's sentence for a verdict decided from these parts, as SoakSummary builds it.
  def conclusion(memory:, live_set:, app_held: nil, held_kb: nil, live_needed: nil, app_needed: nil, rising: nil,
                 rate: nil)
    verdict = memory && Mallard::Summary::Verdict.new(memory: memory, requests_observed: 450)
    live = live_set && Mallard::Summary::LiveSet.new(verdict: live_set, needed: live_needed)
    ledger = app_held && ledger(app_held, held_kb, app_needed, rising)
    decision = Conclusion.call(memory: verdict, live_set: live, ledger: ledger, rate: rate)
    judged = Mallard::Summary::Verdict.new(**verdict.to_h, live_set: live_set, app_held: app_held, **decision.to_h)
    Mallard::Report::VerdictSentences.new(judged, headroom_kb: held_kb).conclusion
  end

  def ledger(app_held, held_kb, app_needed, rising)
    parts = [rising && Mallard::Summary::LedgerPart.new(name: rising, slope: 6.0, verdict: "inconclusive")].compact
    Mallard::Analysis::Ledger::Result.new(app_held: app_held, headroom_kb: held_kb, app_needed: app_needed,
                                          ledger: Mallard::Summary::Ledger.new(parts: parts))
  end
end
