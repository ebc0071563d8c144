# frozen_string_literal: true

require "test_helper"

# A tree of several processes in parts, over the steady window, and a comparison's rows set against each other on
# what their trees share.
class ProcessPartsTest < Minitest::Test
  include ComparisonRows
  Run = Mallard::Run

  # A master and two workers over four ticks, the first of them warm-up: each process's median PSS, the master's part
  # and a worker's, and the tree's shared (summed PSS less summed USS) and private (summed USS) memory, medians over
  # the steady ticks only.
  def test_a_trees_parts_shared_and_private_over_the_steady_window
    tree = Mallard::Analysis::ProcessParts.call(soak_run, window)
    parts = tree.parts.map { |part| [part.pid, part.role, part.steady_pss_kb] }

    assert_equal [[1, "main", 30_000], [2, "child", 43_000], [3, "child", 47_000]], parts
    assert_equal [30_000, 45_000], [tree.main_pss_kb, tree.worker_pss_kb]
    assert_equal 3, tree.parts.first.samples, "the steady ticks, not the warm-up's"
    # At the middle tick (3 s): PSS 30 + 43 + 47 less USS 10 + 23 + 23 (a worker's grows each tick), private that USS.
    assert_equal [64_000, 56_000], [tree.steady_shared_kb, tree.steady_private_kb]
  end

  def test_one_process_has_no_parts
    single = window.samples.map { |total| total.with(processes: 1) }

    assert_nil Mallard::Analysis::ProcessParts.call(soak_run, window.class.new(samples: single, metric: :rss_kb))
  end

  # The row whose tree shares more is told apart from the baseline's by the one change rule, with its interval; the
  # front is drawn on the figures it always was.
  def test_a_rows_shared_memory_against_the_baseline_has_its_interval
    rows = [tree_row("glibc/2x5", 40_000), tree_row("glibc/2x5-refork", 60_000)]
    result = Mallard::Analysis::Comparison.call(rows, baseline: "glibc/2x5")
    refork = result.configs.last

    shared = refork.vs_baseline.shared

    assert_in_delta 50.0, shared.pct, 0.5
    assert_equal "different", shared.finding
    assert_operator shared.ci.first, :>, 0
    assert_equal 60_000, refork.tree.shared_kb.median
    assert_nil result.configs.first.vs_baseline
    assert_nil comparison(row("jemalloc", rss: 90_000)).configs.last.vs_baseline.shared, "one process: no sharing"
  end

  private

  # Ticks at 1..4 s; the first is warm-up. Per tick: the master (RSS 60 MiB, USS 10), two workers (RSS 70, USS 20 + a
  # MiB a tick).
  def soak_run
    processes = (1..4).flat_map do |t|
      [sample(t, 1, "main", rss: 60_000, uss: 10_000, pss: 30_000),
       sample(t, 2, "child", rss: 70_000, uss: 20_000 + (t * 1000), pss: 40_000 + (t * 1000)),
       sample(t, 3, "child", rss: 70_000, uss: 20_000 + (t * 1000), pss: 44_000 + (t * 1000))]
    end
    Run::SoakRun.new(meta: Run::Meta.new, totals: [], processes: processes)
  end

  def window
    totals = (2..4).map { |t| Run::TotalSample.new(t: t.to_f, processes: 3, pss_kb: 120_000) }
    Mallard::Analysis::SteadyWindow::Window.new(samples: totals, warmup_samples: 1, metric: :pss_kb)
  end

  def sample(time, pid, role, rss:, uss:, pss:)
    Run::ProcessSample.new(t: time.to_f, pid: pid, role: role, rss_kb: rss, uss_kb: uss, pss_kb: pss)
  end
end
