# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# compare --shape end to end (issue 42): the same app served by Puma in three shapes at one offered load, each row's
# tree checked from outside, and the memory of each whole tree (PSS summed over the master and its workers) set
# against what every process's own smaps_rollup says, read here while the load runs.
class CompareShapeIntegrationTest < Minitest::Test
  include Processes

  APP = File.expand_path("../fixtures/apps/shared_data", __dir__)
  SELF_PRELOADING = File.expand_path("../fixtures/apps/self_preloading", __dir__)
  SHAPES = "1x5,2x5,2x5-nopreload"
  # The one tolerance the acceptance names: a run's summed PSS against the independent read.
  PSS_TOLERANCE = 0.02

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-compare-shape")
    @out = File.join(@tmp, "run")
  end

  def teardown
    passed? ? FileUtils.remove_entry(@tmp) : warn("compare --shape's runs kept in #{@tmp}")
    super
  end

  # Without preload each of the two workers loads the fixture's 50 MiB itself; preloaded, the master loads it once and
  # both workers share its pages. The one change rule, on the rows' own figures, puts the no-preload tree above 2x5
  # with its whole interval above zero.
  def test_the_tree_without_preload_uses_more_memory_and_every_sum_is_the_processes_own
    reads = Hash.new { |hash, key| hash[key] = [] }
    watcher = Thread.new { watch(reads) }
    summary = compare("--shape", SHAPES, "--repeat", "2", "--duration", "4", "--rate", "50")
    watcher.kill

    assert_equal(%w[glibc/1x5 glibc/2x5 glibc/2x5-nopreload], summary["rows"].map { |row| row["name"] })
    assert_equal "steady_pss_kb", summary["metric"], "several processes: the trees' memory is their summed PSS"
    assert_includes summary.dig("target", "description"), "(Puma, in shapes 1x5, 2x5, 2x5-nopreload)"
    summary["rows"].each { |row| assert row["verified"], "#{row['name']}: #{row['failed']}" }
    assert_more_memory_without_preload(summary)
    assert_sums_are_the_processes_own(summary, reads)
  end

  # The app's own config/puma.rb preloads: the row asking for none fails, saying what its tree is, and only the row
  # whose tree is the one asked for is measured.
  def test_a_tree_unlike_its_shape_fails_its_row_with_what_it_is
    summary = compare("--shape", "1x2,1x2-nopreload", "--repeat", "1", "--duration", "2", "--rate", "20",
                      app: SELF_PRELOADING)
    preloaded, nopreload = summary["rows"]

    assert preloaded["verified"], preloaded["failed"]
    refute nopreload["verified"]
    assert_match(/the Puma tree is not 1x2-nopreload: the master preloaded the app/, nopreload["failed"])
  end

  private

  def compare(*args, app: APP)
    out, err, status = mallard("compare", app, "--json", "--allocators", "glibc", "--out", @out, *args, timeout: 300)
    assert_equal 0, status.exitstatus, err
    JSON.parse(out)
  end

  def assert_more_memory_without_preload(summary)
    preloaded, nopreload = %w[glibc/2x5 glibc/2x5-nopreload].map do |name|
      summary["rows"].find { |row| row["name"] == name }["runs"].map { |run| run["steady_pss_kb"] }
    end
    change = Mallard::Analysis::Change.call(nopreload, preloaded)

    refute_nil change.ci, "no preload #{nopreload} against 2x5 #{preloaded}: #{change.note}"
    assert_operator change.ci.first, :>, 0, "no preload against 2x5: #{change.pct}% #{change.ci.inspect}"
    assert_operator nopreload.min - preloaded.max, :>, 30 * 1024, "about one more copy of the 50 MiB"
  end

  # Each run's steady summed PSS against the median of this test's own reads of its tree during the load.
  def assert_sums_are_the_processes_own(summary, reads)
    runs = summary["rows"].flat_map { |row| row["runs"] + Array(row["instrumented_runs"]) }
    checked = runs.count do |run|
      own = reads.fetch(File.basename(run["run_dir"]), [])
      next false if own.size < 3

      median = own.sort[own.size / 2]
      assert_in_delta median, run["steady_pss_kb"], PSS_TOLERANCE * median, run["run_dir"]
      true
    end
    assert_operator checked, :>=, 6, "every counted run read from outside: #{reads.transform_values(&:size)}"
  end

  # While compare runs: for each run (under glibc/, as its row is named) whose load has begun (its sampler has written
  # a sample), the PSS of its subject's whole tree from each process's smaps_rollup, every half second.
  def watch(reads)
    loop do
      Dir.glob(File.join(@out, "**", "samples.jsonl")).each do |samples|
        dir = File.dirname(samples)
        pid = loaded_subject(dir, samples)
        total = pid && tree_pss_kb(pid)
        reads[File.basename(dir)] << total if total
      end
      sleep 0.5
    end
  end

  def loaded_subject(dir, samples)
    return if File.zero?(samples) || File.exist?(File.join(dir, "summary.json"))

    JSON.parse(File.read(File.join(dir, "meta.json")))["subject_pid"]
  rescue JSON::ParserError, SystemCallError
    nil
  end

  # This test's own walk of the tree (every task's children file) and its own sum: nil when a process went away
  # mid-read, as the run ended.
  def tree_pss_kb(root)
    pids = [root]
    pids.each do |pid|
      Dir.glob("/proc/#{pid}/task/*/children").each { |file| pids.concat(File.read(file).split.map(&:to_i)) }
    end
    pids.uniq.sum { |pid| Integer(File.read("/proc/#{pid}/smaps_rollup")[/^Pss:\s+(\d+)/, 1]) }
  rescue SystemCallError, TypeError
    nil
  end
end
