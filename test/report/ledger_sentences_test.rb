# frozen_string_literal: true

require "test_helper"

# The memory ledger's verdict in words (Analysis::Ledger's finding, decided in LedgerTest): each finding worded by
# the presenter alone, with what the allocator holds, and a ledger stored with its sentence shown as it was.
class LedgerSentencesTest < Minitest::Test
  Parts = Mallard::Analysis::LedgerParts

  # A bounded app under glibc: its own memory flat, the arenas' free chunks climbing to 40 MiB.
  def test_a_flat_app_under_a_growing_held_part_names_the_allocator_why_it_holds_and_what_to_try
    said = sentence(ledger("app_flat", held: "growing"), headroom_kb: 40 * 1024)

    assert_equal "not a leak: the app's own memory is flat; glibc is holding 40 MiB it has freed, and more as the " \
                 "run goes on (arena high-water marks); try `mallard compare` (MALLOC_ARENA_MAX=2, jemalloc): an " \
                 "allocator change can win up to ~40 MiB", said
    assert_match(/; jemalloc is holding 12 MiB it has freed \(dirty and retained pages\); try `mallard compare` /,
                 sentence(ledger("app_flat", allocator: "jemalloc"), headroom_kb: 12 * 1024))
  end

  def test_a_flat_app_with_little_or_nothing_said_held_free
    assert_equal "not a leak: the app's own memory is flat; glibc holds less than 1 MiB it has freed: an allocator " \
                 "change has little to win", sentence(ledger("app_flat"), headroom_kb: 400)
    assert_equal "not a leak: the app's own memory is flat; mimalloc does not say how much it holds free",
                 sentence(ledger("app_flat", allocator: "mimalloc"), headroom_kb: nil)
  end

  def test_growth_and_undecided_growth_say_their_slope_and_what_an_allocator_change_can_win
    assert_equal "the app's own memory grows (+512 KiB per 1,000 requests): it retains memory — a cache or a leak; " \
                 "besides, an allocator change can win up to ~3 MiB",
                 sentence(ledger("app_grows", slope: 511.6), headroom_kb: 3 * 1024)
    assert_match(/\Athe app's malloc'd memory grows \(\+60 KiB per second\) while its live set is flat: .*longer\z/,
                 sentence(ledger("app_unconfirmed", slope: 60.2, unit: "KiB per second"), headroom_kb: 100))
    assert_equal "the app's own memory is not decided yet (run longer); an allocator change can win up to ~56 MiB",
                 sentence(ledger("app_undecided"), headroom_kb: 56 * 1024)
  end

  def test_nothing_is_said_without_a_finding_and_a_stored_sentence_is_shown
    assert_nil sentence(nil)
    assert_nil sentence(ledger(nil))
    stored = Mallard::Summary::Ledger.from_h("sentence" => "as an older mallard put it")

    assert_equal "as an older mallard put it", sentence(stored)
  end

  private

  def ledger(finding, slope: nil, allocator: "glibc", held: "plateaued", unit: "KiB per 1,000 requests")
    Mallard::Summary::Ledger.new(finding: finding, app_slope: slope, allocator: allocator, unit: unit,
                                 parts: [Mallard::Summary::LedgerPart.new(name: Parts::HELD, verdict: held)])
  end

  def sentence(ledger, headroom_kb: nil)
    Mallard::Report::LedgerSentences.new(ledger, headroom_kb: headroom_kb).sentence
  end
end
