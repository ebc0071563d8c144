# frozen_string_literal: true

require "test_helper"

# The stored runs whose summary.json holds the sentences an older mallard wrote (test/fixtures/runs): their summaries
# computed again from the records hold data in those places, and the presenter words that data as the run stored it.
# Read as stored, they show the stored sentences.
class StoredSentencesTest < Minitest::Test
  RUNS = File.expand_path("../fixtures/runs", __dir__)

  def test_a_stored_verdicts_conclusion_reads_the_same_from_its_finding
    each_soak { |stored, now| assert_worded_alike(stored, now, :conclusion) { |summary| summary.verdict.conclusion } }
  end

  def test_a_stored_ledgers_sentence_reads_the_same_from_its_finding
    each_soak { |stored, now| assert_worded_alike(stored, now, :ledger) { |summary| summary.ledger.sentence } }
  end

  def test_a_stored_gcs_causes_and_relation_to_the_live_set_read_the_same_from_their_data
    each_soak do |stored, now|
      refute_nil stored.gc.major_time_vs_live_set.sentence
      assert_nil now.gc.causes
      assert_equal stored.gc.causes.to_a, sentences(now).gc.causes
      assert_equal stored.gc.major_time_vs_live_set.sentence, sentences(now).gc_correlation
      assert_equal stored.gc.major_time_vs_live_set.sentence, sentences(stored).gc_correlation
    end
  end

  def test_a_stored_live_sets_note_reads_the_same_from_its_data
    each_soak do |stored, now|
      assert_nil now.live_set.note
      assert_equal sentences(stored).live_set_basis, sentences(now).live_set_basis
    end
  end

  private

  # The sentence the stored summary kept (read from it by the block) is the one the presenter words from the data of
  # the summary computed again, which keeps none, and the one it shows of the stored summary.
  def assert_worded_alike(stored, now, sentence)
    kept = yield(stored)

    refute_nil kept
    assert_nil yield(now)
    assert_equal kept, sentences(now).public_send(sentence)
    assert_equal kept, sentences(stored).public_send(sentence)
  end

  # A gc run's summary, and the soak of a heap run: [as stored, computed again from the records].
  def each_soak
    %w[gc-leaky heap-leaky].each do |name|
      opened = Mallard::RunKind.open(File.join(RUNS, name))
      heap = opened.summary.is_a?(Mallard::Summary::Heap)
      run = heap ? opened.run.soak : opened.run
      yield heap ? opened.summary.soak : opened.summary, Mallard::Analysis::SoakSummary.call(run)
    end
  end

  def sentences(summary) = Mallard::Report::SoakSentences.new(summary)
end
