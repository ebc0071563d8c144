# frozen_string_literal: true

require "test_helper"

# The stored runs whose summary.json holds the sentences an older mallard wrote (test/fixtures/runs): their summaries
# computed again from the records hold data in those places, and the presenter words that data as the run stored it.
# Read as stored, they show the stored sentences.
class StoredSentencesTest < Minitest::Test
  RUNS = File.expand_path("../fixtures/runs", __dir__)

  def test_a_stored_verdicts_conclusion_reads_the_same_from_its_finding
    each_soak do |stored, now|
      assert_nil now.verdict.conclusion
      refute_nil stored.verdict.conclusion
      assert_equal stored.verdict.conclusion, sentences(now).conclusion
      assert_equal stored.verdict.conclusion, sentences(stored).conclusion
    end
  end

  def test_a_stored_ledgers_sentence_reads_the_same_from_its_finding
    each_soak do |stored, now|
      refute_nil stored.ledger.sentence
      assert_nil now.ledger.sentence
      assert_equal stored.ledger.sentence, sentences(now).ledger
      assert_equal stored.ledger.sentence, sentences(stored).ledger
    end
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
