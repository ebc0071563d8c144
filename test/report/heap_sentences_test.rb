# frozen_string_literal: true

require "test_helper"
require_relative "heap_summaries"

# The words of a heap run (HeapSentences): what the retention comes to, from the sites judged significant, and how
# the run ended, from the dumps that are missing and whether the traced app's load failed. A summary stored with its
# sentences (an older summary.json) shows them as stored.
class HeapSentencesTest < Minitest::Test
  include HeapSummaries

  RUNS = File.expand_path("../fixtures/runs", __dir__)

  def test_the_conclusion_counts_the_significant_sites_and_names_the_largest
    hash = heap_hash
    hash["sites"][1]["significant"] = true

    assert_equal "2 allocation sites keep 256.0 KiB or more; the most, 2.0 MiB of String, at /app/lib/cache.rb:12",
                 sentences(hash).conclusion
  end

  def test_nothing_retained_beyond_the_threshold_is_a_conclusion_too
    hash = heap_hash.merge("retained_bytes" => 700)
    hash["sites"].each { |site| site["significant"] = false }

    assert_equal "nothing retained beyond the threshold: no allocation site keeps 256.0 KiB or more of what was " \
                 "allocated between dump A and dump B (700 B kept in all)", sentences(hash).conclusion
  end

  def test_a_run_without_retention_concludes_nothing
    assert_nil sentences("kind" => "heap", "status" => "failed", "sites" => []).conclusion
  end

  # heap-leaky, as stored (its conclusion a sentence) and computed again from its dumps (the sites alone).
  def test_a_stored_runs_conclusion_reads_the_same_from_its_sites
    opened = Mallard::RunKind.open(File.join(RUNS, "heap-leaky"))
    now = Mallard::Analysis::HeapSummary.call(opened.run)

    assert_nil now.conclusion
    refute_nil opened.summary.conclusion
    assert_equal opened.summary.conclusion, Mallard::Report::HeapSentences.new(now).conclusion
    assert_equal opened.summary.conclusion, Mallard::Report::HeapSentences.new(opened.summary).conclusion
  end

  def test_missing_dumps_say_how_many_were_written_and_why
    written = ->(shortfall) { sentences(failed("shortfall" => shortfall)).reason }

    assert_equal "1 of the 3 dumps was written (it stopped asking)",
                 written.call("written" => 1, "why" => "it stopped asking")
    assert_equal "2 of the 3 dumps were written (the run ended before dump C was written)",
                 written.call("written" => 2)
    assert_equal "0 of the 3 dumps were written (the run ended before dump A was written)",
                 written.call("written" => 0)
  end

  def test_a_stopped_run_says_how_its_soak_ended_then_what_became_of_the_dumps
    hash = failed("status" => "interrupted", "cause" => "signal", "reason" => "interrupted by SIGINT",
                  "shortfall" => { "written" => 1 })

    assert_equal "interrupted by SIGINT; 1 of the 3 dumps was written (the run ended before dump B was written)",
                 sentences(hash).reason
  end

  def test_a_load_that_failed_under_tracing_says_what_to_change
    hash = heap_hash.merge("status" => "failed", "cause" => "errors", "reason" => "31% of requests failed",
                           "traced_load_failed" => true)

    assert_match(/\A31% of requests failed; allocation tracing slows the app .* \(--concurrency, default 2\) /,
                 sentences(hash).reason)
    assert_nil sentences(heap_hash).reason, "a complete run says nothing of how it ended"
  end

  def test_an_older_summarys_stored_sentences_are_shown_as_stored
    hash = failed("reason" => "0 of the 3 dumps were written (why)", "conclusion" => "1 allocation site keeps it")

    assert_equal "0 of the 3 dumps were written (why)", sentences(hash).reason
    assert_equal "1 allocation site keeps it", sentences(hash).conclusion
  end

  private

  def failed(changes) = { "kind" => "heap", "status" => "failed", "cause" => "no_dumps", "sites" => [] }.merge(changes)

  def sentences(hash) = Mallard::Report::HeapSentences.new(heap_summary(hash))
end
