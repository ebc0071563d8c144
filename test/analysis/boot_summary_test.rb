# frozen_string_literal: true

require "test_helper"

# The stored boot run of the fixture Bundler app (test/fixtures/runs/boot), summarised again.
class BootSummaryTest < Minitest::Test
  RUN = File.expand_path("../fixtures/runs/boot", __dir__)

  def setup
    @run = Mallard::RunKind.open(RUN).run
    @summary = Mallard::Analysis::BootSummary.call(@run)
  end

  def test_the_total_is_the_median_of_the_repeats_and_its_parts_add_up
    total = @summary.total
    values = @run.repeats.map { |repeat| Mallard::Analysis::BootTree.new(repeat).root.figures[:rss] / 1024.0 }

    assert_equal 5, @summary.repeats
    assert_in_delta Mallard::Analysis::Statistics.median(values), total.rss_kb, 1e-9
    assert_equal Mallard::Analysis::Statistics.mean_ci(values), total.ci
  end

  def test_the_parts_and_the_remainder_add_up_to_the_total
    total = @summary.total
    parts = total.parts
    assert_in_delta total.rss_kb, parts.file_kb + parts.heap_kb + parts.malloc_kb + parts.unexplained_kb, 1e-6
    assert_in_delta total.baseline_kb + total.growth_kb, total.rss_kb, total.rss_kb * 0.01
  end

  def test_the_gems_add_up_to_the_total_and_nodes_carry_their_interval
    assert_in_delta @summary.total.rss_kb, @summary.gems.sum(&:rss_kb), @summary.total.rss_kb * 0.01
    nodes = all(@summary.tree)
    assert(nodes.all? { |node| node.rss_kb.abs >= @summary.cutoff_kb })
    nodes.each do |node|
      next unless node.ci

      assert_equal node.ci[0] <= 0 && node.ci[1] >= 0, node.uncertain, node.name
    end
    assert_equal "ballast", @summary.tree.max_by(&:rss_kb).name
  end

  def test_the_stored_summary_reads_back_as_the_one_computed_again
    assert_equal Mallard::Value.plain(@summary.tree), Mallard::Value.plain(@run.summary.tree)
  end

  def test_a_run_whose_repeats_all_failed_is_a_failed_measurement_with_the_apps_error
    failed = @run.repeats.map do |repeat|
      repeat.dup.tap do |copy|
        copy.finish = nil
        copy.failure = { "class" => "NameError", "message" => "uninitialized constant Foo", "where" => "x.rb:1" }
      end
    end
    summary = Mallard::Analysis::BootSummary.call(@run.dup.tap { |run| run.repeats = failed })

    assert_equal "failed", summary.status
    assert_equal "boot_failed", summary.cause
    assert_match(/NameError: uninitialized constant Foo/, summary.reason)
    assert_empty summary.tree
  end

  # glibc's mallinfo2 was too slow to read at every require in two repeats: how many, of how many, and the first's
  # words, as data (BootSentences words it).
  def test_repeats_that_stopped_reading_malloc_are_counted
    took = ["one reading took 12.5 ms", "one reading took 9.0 ms"]
    repeats = @run.repeats.each_with_index.map { |repeat, index| repeat.with(malloc_stopped: took[index]) }
    summary = Mallard::Analysis::BootSummary.call(@run.with(repeats: repeats))

    assert_equal [2, 5, "one reading took 12.5 ms"], summary.malloc_stopped.to_h.values_at(:repeats, :of, :first)
    assert_nil summary.malloc_note
    assert_nil @summary.malloc_stopped, "read at every require"
  end

  private

  def all(nodes)
    nodes.flat_map { |node| [node, *all(node.children)] }
  end
end
