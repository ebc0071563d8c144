# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "heap_summaries"

# The heap view in the terminal: what it concludes, the dumps against the app's RSS and the wait for them, mallard's
# own requests during the dumps against the baseline, and the endings that must not contradict the table.
class HeapTerminalTest < Minitest::Test
  include HeapSummaries

  def test_the_dumps_are_set_against_the_apps_rss_and_dump_latency_against_the_baseline
    text = render(heap_hash.merge("wait" => { "waited_s" => 6.2, "gave_up" => nil }))

    assert_includes text, "A: at 7.5 s, 15.0 MiB (1.0× the app's RSS of 15.0 MiB), 120,000 objects, written in 0.8 s"
    assert_includes text, "the run waited 6.2 s after the load for its dumps"
    assert_includes text, "mallard's requests to / while a dump was taken: median 2.4 ms, slowest 31.7 ms " \
                          "(41 requests, 0 failed)"
    assert_includes text,
                    "outside the dumps, under the same load: median 1.9 ms, slowest 12.0 ms (90 requests, 0 failed)"
    assert_includes text, "(mallard report --soak "
  end

  def test_the_conclusion_is_said_including_that_nothing_was_retained
    hash = heap_hash
    hash["sites"].each { |site| site["significant"] = false }
    text = render(hash)

    assert_includes text, "nothing retained beyond the threshold: no allocation site keeps 256.0 KiB or more of " \
                          "what was allocated between dump A and dump B (3.0 MiB kept in all)"
    assert_includes render(heap_hash), "1 allocation site keeps 256.0 KiB or more; the most, 2.0 MiB of String, at " \
                                       "/app/lib/cache.rb:12"
  end

  def test_probes_that_all_failed_are_not_a_median_of_zero
    failed = { "requests" => 12, "answered" => 0, "p50_ms" => nil, "max_ms" => nil, "errors" => 12 }
    text = render(heap_hash.merge("latency" => { "path" => "/", "during" => failed, "outside" => failed }))

    assert_includes text, "while a dump was taken: 12 requests, all failed"
    refute_includes text, "0.0 ms"
  end

  def test_a_failed_soak_with_its_three_dumps_keeps_its_retention_without_saying_there_is_none
    text = render(heap_hash.merge("status" => "failed", "cause" => "errors", "reason" => "12% of requests failed"))

    assert_includes text, "the soak failed: 12% of requests failed; the retention below is from its three dumps"
    refute_includes text, "no retention"
    assert_includes text, "/app/lib/cache.rb:12"
  end

  def test_no_dumps_says_why_and_shows_no_retention_and_no_latency_during_dumps
    text = render("kind" => "heap", "status" => "failed", "cause" => "no_dumps",
                  "shortfall" => { "written" => 0, "why" => "the app did not take dump request 1 within 15 s" },
                  "latency" => { "path" => "/", "during" => nil,
                                 "outside" => { "requests" => 5, "answered" => 5, "p50_ms" => 1.0, "max_ms" => 2.0,
                                                "errors" => 0 } })

    assert_includes text, "failed measurement: 0 of the 3 dumps were written (the app did not take dump request 1 " \
                          "within 15 s), no retention"
    refute_includes text, "while a dump was taken"
  end

  private

  def render(hash)
    io = StringIO.new
    Mallard::Report::HeapTerminal.new(Mallard::Summary::Heap.from_h(hash)).render(io)
    io.string
  end
end
