# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require_relative "../support/rubies"

# compare --shape's variants end to end on the built Ruby 3.3 (Puma 8 and Pitchfork from RubyGems; Process.warmup is
# 3.3's): fork_worker reforking after a few requests, warmup before fork, and Pitchfork with its mold, each row's tree
# verified from outside before it counts, and what each run's server did read back from its own directory. The app
# writes into the pages its master shared as it serves (cow_decay): a tree that reforks keeps more of them shared
# than the plain one (issue 42's acceptance), told apart with its interval.
class Ruby33CompareShapeVariantsTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/cow_decay", __dir__)
  PLAIN = "glibc/2x1"
  REFORK = "glibc/2x2-refork=20"
  WARMUP = "glibc/2x2-warmup"
  PITCHFORK = "glibc/2x1-pitchfork=20"
  SHAPES = [PLAIN, REFORK, WARMUP, PITCHFORK].freeze

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-ruby33-shape-variants")
    Rubies.extensions(Rubies::STOCK) # built once, outside the run's time limit
  end

  def teardown
    passed? ? FileUtils.remove_entry(@tmp) : warn("compare --shape's variant runs kept in #{@tmp}")
    super
  end

  # 20 requests before a refork, at 30 a second for 8 s: Puma reforks at a worker's first check-in past 20 (every 5 s,
  # so up to 6.3 s into the load: a 6 s run once ended before its refork), Pitchfork as soon as a worker has served
  # them. A refork ends the old workers' keep-alive connections, which the
  # load counts as failed requests (a dozen of some 240 on Puma 8), so errors are allowed up to 10%.
  #
  # Two comparisons: the rows whose shared memory is compared, over three repeats each, and the rows that need only
  # be the trees they ask for, once each (with the agent and without): 12 runs where all four at three repeats took
  # 16, and 45 s more of the suite.
  def test_refork_warmup_and_pitchfork_rows_are_the_trees_they_ask_for
    summary = compare([PLAIN, PITCHFORK], repeat: 3, out: "shared")
    rows = [summary, compare([REFORK, WARMUP], repeat: 1, out: "trees")].flat_map { |one| one["rows"] }
                                                                        .to_h { |row| [row["name"], row] }

    assert_equal SHAPES.sort, rows.keys.sort
    rows.each_value { |row| assert row["verified"], "#{row['name']}: #{row['failed']}" }
    assert_reforked(rows[REFORK], /- Starting worker refork, phase: \d+/, processes: 3)
    assert_reforked(rows[PITCHFORK], /mold gen=[1-9]\d* pid=/, processes: 4)
    assert_warmed_up_before_fork(rows[WARMUP])
    assert_pitchfork_config(rows[PITCHFORK])
    assert_load_reached_each_worker(rows[PLAIN])
    assert_reforking_keeps_more_shared(summary)
  end

  private

  def compare(shapes, repeat:, out:)
    out, err, status = mallard("compare", APP, "--json", "--ruby", Rubies.path(Rubies::STOCK), "--allocators", "glibc",
                               "--shape", shapes.map { |name| name.split("/").last }.join(","),
                               "--repeat", repeat.to_s, "--duration", "8", "--rate", "30", "--max-errors", "10",
                               "--out", File.join(@tmp, out), timeout: 300)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  # Each worker of the plain tree has written to most of the pages it shared within seconds; Pitchfork's workers,
  # forked again from a mold every 20 requests, share them again. The tree's shared memory (summed PSS less summed
  # USS) against the plain tree's, by the one change rule. Three repeats: with two, Welch's interval has about one
  # degree of freedom, and a fresh-clone run whose plain trees shared 41.4 and 45.5 MiB and Pitchfork's 65.8 and
  # 67.3 gave +53% (-5.9 … +150).
  def assert_reforking_keeps_more_shared(summary)
    pitchfork = summary["configs"].find { |config| config["name"] == PITCHFORK }
    shared = pitchfork.dig("vs_baseline", "shared")

    refute_nil shared&.dig("ci"), "the shared memory of #{PITCHFORK} against #{PLAIN}: #{pitchfork['tree'].inspect}"
    assert_operator shared["ci"].first, :>, 0, "Pitchfork keeps more shared: #{shared.inspect}"
  end

  def assert_pitchfork_config(row)
    config = File.read(File.join(row["runs"].first["run_dir"], "pitchfork.rb"))

    assert_match(/^worker_processes 2\nlisten "127.0.0.1:\d+"\nrefork_after \[20\]$/, config)
  end

  # Every request on a new connection, so that neither worker keeps the load's first burst of keep-alive connections
  # (a fresh-clone run's plain tree once had a worker serve nothing, and shared 64.6 MiB where its other runs shared
  # 42 and 45): each counted run, with no agent to count requests, read its two workers' CPU while load ran.
  def assert_load_reached_each_worker(row)
    row["runs"].each do |run|
      meta = JSON.parse(File.read(File.join(run["run_dir"], "meta.json")))
      validity = JSON.parse(File.read(File.join(run["run_dir"], "summary.json")))["validity"]

      assert meta.dig("options", "reconnect"), run["run_dir"]
      assert_equal 2, validity["cpu_s_per_worker"].size, validity.inspect
      assert_empty validity["problems"], run["run_dir"]
    end
  end

  # Every run of the row, with the agent or not, logged a refork, and its memory is its whole tree's: the master (or
  # monitor), Pitchfork's mold and the workers.
  def assert_reforked(row, line, processes:)
    runs = row["runs"] + row["instrumented_runs"]
    runs.each do |run|
      logged = File.read(File.join(run["run_dir"], "subject.log")).scan(line).uniq.size
      assert_operator logged, :>=, 1, run["run_dir"]
      assert_equal logged, run["reforks"], "the reforks the run's JSON says are its server's own"
    end
    assert_equal [processes], row["runs"].map { |run| run["processes"] }.uniq, row["name"]
  end

  # Preloaded, with Process.warmup after the app in the rackup the master loads, and the workers forked after it carry
  # its compaction (the run with the agent counts it).
  def assert_warmed_up_before_fork(row)
    run_dir = row["instrumented_runs"].first["run_dir"]

    assert_includes File.read(File.join(run_dir, "subject.log")), "* Preloading application"
    assert_match(/^Process\.warmup$/, File.read(File.join(run_dir, "mallard.ru")))
    inside = JSON.parse(File.read(File.join(run_dir, "meta.json")))["subject_ruby"]
    assert_operator inside["compact_count_at_end"], :>=, 1
  end
end
