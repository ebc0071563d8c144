# frozen_string_literal: true

require "test_helper"
require_relative "../support/gc_runs"

# The memory ledger on hand-built runs: parts from one reading per allocator, and growth judged per part. What the app
# holds is decided as data (LedgerSentencesTest words it).
class LedgerTest < Minitest::Test
  include GcRuns
  Ledger = Mallard::Analysis::Ledger
  Parts = Mallard::Analysis::LedgerParts
  MIB = 1024 * 1024

  def test_parts_add_up_to_rss_and_each_allocator_says_what_it_holds_free
    glibc = Parts.call(reading(malloc: { "mallinfo2.fordblks" => 6 * MIB }))
    jemalloc = Parts.call(reading(allocator: "jemalloc",
                                  malloc: { "stats.resident" => 30 * MIB, "stats.allocated" => 20 * MIB }))
    tcmalloc = Parts.call(reading(allocator: "tcmalloc",
                                  malloc: { "generic.heap_size" => 40 * MIB,
                                            "generic.current_allocated_bytes" => 20 * MIB,
                                            "tcmalloc.pageheap_unmapped_bytes" => 12 * MIB }))

    assert_equal([6144, 10_240, 8192], [glibc, jemalloc, tcmalloc].map { |parts| parts[Parts::HELD] })
    [glibc, jemalloc, tcmalloc].each { |parts| assert_equal 100_000, parts.values.compact.sum }
    assert_equal 100_000 - 10_000 - 20_000 - 1000 - 30_000 - 6144, glibc[Parts::UNEXPLAINED]
  end

  # File-backed and stacks in PSS as the mappings say; the anonymous parts at the anonymous PSS/RSS ratio
  # (here 40,000 of 68,000 KiB); the parts still add up, to PSS.
  def test_parts_in_pss_split_the_anonymous_parts_pro_rata_and_add_up_to_pss
    record = reading(stacks_kb: 2000, stacks_pss_kb: 1000, pss_kb: 51_000, file_pss_kb: 10_000)
    pss = Parts.pss(record)

    assert_equal 51_000, pss.values.compact.sum
    assert_equal [10_000, 1000], pss.values_at(Parts::FILE, Parts::STACKS)
    assert_equal (10_000 * 40.0 / 68).round, pss[Parts::LIVE]
    assert_equal 2000, Parts.call(record)[Parts::STACKS]
    assert_nil Parts.pss(reading), "a reading without its mappings has no PSS"
  end

  # Ruby 3.1's transient heap, found in the mappings: a part of its own, outside the anonymous memory read inside
  # (here 38,000 KiB of RSS, 18,000 of PSS), in PSS as the mappings say; the parts still add up, to RSS and to PSS.
  def test_the_transient_heap_is_a_part_of_its_own_in_rss_and_pss
    record = reading(stacks_kb: 2000, stacks_pss_kb: 1000, transient_heap_kb: 4000, transient_heap_pss_kb: 2000,
                     pss_kb: 51_000, file_pss_kb: 10_000)
    rss = Parts.call(record)
    pss = Parts.pss(record)

    assert_equal [4000, 2000], [rss[Parts::TRANSIENT], pss[Parts::TRANSIENT]]
    assert_equal 100_000 - 10_000 - 1000 - 4000 - 20_000 - 30_000 - 2000, rss[Parts::UNEXPLAINED]
    assert_equal [100_000, 51_000], [rss.values.compact.sum, pss.values.compact.sum]
    assert_equal (10_000 * 38.0 / 64).round, pss[Parts::LIVE]
  end

  def test_no_transient_heap_is_no_part
    assert_nil Parts.call(reading)[Parts::TRANSIENT], "a Ruby without one, or a reading without the mappings"
  end

  # The transient heap is carried between the sampler's readings of the mappings, as the stacks are.
  def test_the_transient_heap_carries_like_the_stacks
    run = run_with(3)
    run.processes = [Mallard::Run::ProcessSample.new(t: 1.0, pid: 1, role: "main", rss_kb: 100_000, pss_kb: 51_000,
                                                     stacks_kb: 2000, stacks_pss_kb: 1000, transient_heap_kb: 4000,
                                                     transient_heap_pss_kb: 4000, file_pss_kb: 10_000)]

    assert_equal [4000] * 3,
                 Mallard::Analysis::LedgerMappings.call(run.ledger, run.processes).map(&:transient_heap_kb)
    assert_includes Ledger.call(run).ledger.parts.map(&:name), Parts::TRANSIENT
  end

  # The mappings are read less often than the rest: a process's PSS is its last reading's that had them, never the
  # RSS of a later one split by an earlier share.
  def test_pss_is_the_last_reading_that_read_the_mappings
    run = run_with(3) do |i|
      i.zero? ? { pss_kb: 51_000, file_pss_kb: 10_000, stacks_kb: 2000, stacks_pss_kb: 1000, mappings_t: 1.0 } : {}
    end
    ledger = Ledger.call(run).ledger
    process = ledger.processes.first

    assert_equal [51_000, 1.0], [process.pss_kb, process.pss_t]
    assert_equal 51_000, ledger.pss_kb
    assert_equal 51_000, process.pss_parts.values.compact.sum
  end

  # The sampler reads the mappings from outside (at 2.4 s and 7.4 s here, the ledger every second from 1 s): each
  # of its readings gives its PSS and stacks to the ledger reading nearest in time, and the stacks to every reading
  # after.
  def test_the_samplers_mappings_join_the_nearest_ledger_reading_and_the_stacks_carry
    run = run_with(9)
    run.processes = [2.4, 7.4].map.with_index do |t, i|
      Mallard::Run::ProcessSample.new(t: t, pid: 1, role: "main", rss_kb: 100_000, pss_kb: 51_000 + i,
                                      stacks_kb: 2000 + i, stacks_pss_kb: 1000, file_pss_kb: 10_000)
    end
    joined = Mallard::Analysis::LedgerMappings.call(run.ledger, run.processes)

    assert_equal [nil, 51_000, nil, nil, nil, nil, 51_001, nil, nil], joined.map(&:pss_kb)
    assert_equal [2.4, 7.4], joined.filter_map(&:mappings_t)
    assert_equal [nil, 2000, 2000, 2000, 2000, 2000, 2001, 2001, 2001], joined.map(&:stacks_kb)
    process = Ledger.call(run).ledger.processes.first
    assert_equal [51_001, 7.4], [process.pss_kb, process.pss_t]
  end

  # Too far from any ledger reading (a busy script's agent can go seconds without one), a PSS joins none.
  def test_a_mappings_reading_far_from_every_ledger_reading_gives_no_pss
    run = run_with(2)
    sample = Mallard::Run::ProcessSample.new(t: 6.0, pid: 1, role: "main", rss_kb: 100_000, pss_kb: 51_000,
                                             stacks_kb: 2000, stacks_pss_kb: 1000, file_pss_kb: 10_000)

    assert_equal [nil, nil], Mallard::Analysis::LedgerMappings.call(run.ledger, [sample]).map(&:pss_kb)
  end

  # jemalloc's resident is a maximum: a linked jemalloc in Ruby 3.3 said 10,440 KiB resident in a process whose
  # RSS left room for 3,100 KiB of malloc. Its parts take what RSS leaves, in use first, and the rest is named.
  def test_an_allocator_counting_more_than_rss_holds_is_capped_and_says_by_how_much
    jemalloc = { "stats.resident" => 10_440 * 1024, "stats.allocated" => 3000 * 1024 }
    record = reading(rss_kb: 12_000, file_kb: 8000, ruby_live_kb: 700, ruby_pages_kb: 900, malloc_in_use_kb: 3000,
                     allocator: "jemalloc", malloc: jemalloc)
    parts = Parts.call(record)

    assert_equal [3000, 100, 0], parts.values_at(Parts::MALLOC, Parts::HELD, Parts::UNEXPLAINED)
    assert_equal 12_000, parts.values.compact.sum
    assert_match(/\Ajemalloc counted 7\.2 MiB more than RSS had room for/, Parts.not_read(record))
    assert_nil Parts.not_read(reading(malloc: { "mallinfo2.fordblks" => 6 * MIB })), "within RSS: nothing to say"
  end

  def test_what_an_allocator_cannot_report_is_named_and_left_in_unexplained
    note = "mimalloc counts the bytes it has handed out only in its debug builds (MI_STAT > 1)"
    mimalloc = reading(allocator: "mimalloc", malloc_in_use_kb: nil, malloc: {}, malloc_note: note)
    parts = Parts.call(mimalloc)

    assert_nil parts[Parts::MALLOC]
    assert_nil parts[Parts::HELD]
    assert_equal 100_000, parts.values.compact.sum
    assert_equal note, Parts.not_read(mimalloc)
  end

  # A bounded app under glibc: its own memory flat, the arenas' free chunks climbing to 40 MiB.
  def test_flat_app_held_under_growing_allocator_held_is_not_a_leak
    result = Ledger.call(run_with(30) { |i| { rss_kb: 110_000, malloc: { "mallinfo2.fordblks" => (i + 11) * MIB } } })

    assert_equal %w[plateaued growing], [result.app_held, result.allocator_held]
    assert_equal 40 * 1024, result.headroom_kb
    assert_equal %w[app_flat glibc], [result.ledger.finding, result.ledger.allocator]
    assert_nil result.ledger.sentence
    assert_equal "growing", result.ledger.parts.find { |part| part.name == Parts::HELD }.verdict
  end

  # A script that keeps nothing: glibc holds next to nothing freed, and nothing is worth comparing.
  def test_a_flat_app_with_almost_nothing_held_free_has_little_to_win
    result = Ledger.call(run_with(30) { { malloc: { "mallinfo2.fordblks" => 400 * 1024 } } })

    assert_equal %w[plateaued app_flat], [result.app_held, result.ledger.finding]
    assert_operator result.headroom_kb, :<, 1024
  end

  def test_growing_app_held_is_retention
    result = Ledger.call(run_with(30) { |i| { ruby_live_kb: 10_000 + (500 * i), ruby_pages_kb: 12_000 + (500 * i) } })

    assert_equal %w[growing app_grows], [result.app_held, result.ledger.finding]
    assert_operator result.ledger.app_slope, :>, 500
    assert_equal "KiB per 1,000 requests", result.ledger.unit
    assert_equal ["ruby live objects", "ruby free slots", "malloc in use", "malloc held free", "file-backed",
                  "unexplained"],
                 result.ledger.parts.map(&:name)
  end

  # glibc counting more than RSS has room for (its arena pages never touched): the malloc-in-use part is capped at
  # what RSS leaves and follows RSS up, while glibc's own count of what the app holds stays flat. The app's memory is
  # judged on that count: a batch script that keeps nothing was called undecided on the capped part.
  def test_app_held_memory_is_judged_on_the_allocators_own_count_not_the_capped_part
    result = Ledger.call(run_with(30) do |i|
      { rss_kb: 60_000 + (100 * i), malloc_in_use_kb: 30_000 + (i.even? ? 50 : -50) }
    end)
    malloc = result.ledger.parts.find { |part| part.name == Parts::MALLOC }

    assert_equal "growing", malloc.verdict, "the capped part follows RSS"
    assert_equal "plateaued", result.app_held
  end

  def test_processes_are_summed_and_each_gets_its_stacked_line
    records = run_with(30).ledger.flat_map { |record| [record, Mallard::Run::LedgerRecord.new(**record.to_h, pid: 2)] }
    run = gc_run
    run.ledger = records
    result = Ledger.call(run)

    assert_equal 200_000, result.ledger.parts.sum(&:kb)
    assert_equal [1, 2], result.ledger.processes.map(&:pid)
    assert_in_delta 61.0, result.ledger.explained_pct, 0.01 # 39,000 KiB of each 100,000 unexplained
  end

  def test_readings_before_the_load_are_not_judged_and_no_readings_is_nil
    assert_nil Ledger.call(gc_run)
    result = Ledger.call(run_with(30, start: -20.0))

    assert_equal 10, result.ledger.readings # t = 1 .. 10 of -19 .. 10: the load ran from 1 to 31
  end

  # malloc in use climbing under a flat live set: buffers of objects not collected yet, or native memory; not
  # called retention (a Rails app that leaks nothing did this).
  def test_malloc_growth_under_a_flat_live_set_is_not_called_retention
    run = run_with(30) { |i| { malloc_in_use_kb: 44_000 + (60 * i) } }
    undecided = Ledger.call(run, live_set: "plateaued")

    assert_equal %w[inconclusive app_unconfirmed], [undecided.app_held, undecided.ledger.finding]
    assert_operator undecided.ledger.app_slope, :>, 0
    assert_equal "inconclusive", Ledger.call(run).app_held, "no live set, but the bytes in live slots are flat"
    growing = Ledger.call(run, live_set: "growing")

    assert_equal %w[growing app_grows], [growing.app_held, growing.ledger.finding]
  end

  private

  def reading(**fields)
    Mallard::Run::LedgerRecord.new(t: 1.0, pid: 1, requests: 100, rss_kb: 100_000, file_kb: 30_000,
                                   ruby_live_kb: 10_000, ruby_pages_kb: 11_000, malloc_in_use_kb: 20_000,
                                   allocator: "glibc", malloc: { "mallinfo2.fordblks" => 0 }, yjit_kb: nil,
                                   threads: 6, cost_ms: 0.4, **fields)
  end

  # count readings a second apart from t = start + 1, the fields of each from the block.
  def run_with(count, start: 0.0)
    run = gc_run
    run.ledger = Array.new(count) do |i|
      t = start + i + 1
      reading(t: t, requests: (t * 100).round, **(block_given? ? yield(i) : {}))
    end
    run
  end
end
