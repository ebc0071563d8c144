# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

class ReaderTest < Minitest::Test
  Reader = Mallard::Run::Reader
  RUNS = File.expand_path("../fixtures/runs", __dir__)

  def setup
    @tmp = Dir.mktmpdir("mallard-reader-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_reads_a_schema_1_soak
    run = Mallard::RunKind.open(File.join(RUNS, "soak-leaky")).run

    assert_instance_of Mallard::Run::SoakRun, run
    assert_equal 1, run.meta.schema_version
    assert_equal "complete", run.phases.outcome.status, "schema 1 kept its outcome as plain fields"
    assert_equal "growing", run.summary.verdict.memory
    refute_empty run.totals
    assert_equal run.totals.sort_by(&:t), run.totals
    assert_instance_of Mallard::Probe::LoadResult, run.load
  end

  def test_reads_a_schema_1_comparison_with_its_soak_runs
    run = Mallard::RunKind.open(File.join(RUNS, "compare")).run

    assert_instance_of Mallard::Run::CompareRun, run
    assert_equal %w[glibc glibc-arena2 jemalloc], run.soak_runs.keys
    assert_equal [2, 2, 2], run.soak_runs.values.map(&:size)
    assert_equal 0, run.missing
  end

  # A comparison copied without one of its runs still reads, and says how many it lacks.
  def test_a_comparison_missing_a_soak_run_counts_it
    path = copy("compare")
    FileUtils.rm_r(File.join(path, "jemalloc-2"))
    run = Mallard::RunKind.open(path).run

    assert_equal 1, run.missing
    assert_equal [2, 2, 1], run.soak_runs.values.map(&:size)
  end

  %w[summary.json meta.json].each do |name|
    define_method("test_refuses_a_run_whose_#{name.delete_suffix('.json')}_has_a_newer_schema") do
      path = copy("soak-leaky")
      bump(path, name)

      error = assert_raises(Reader::NewerSchema) { Mallard::RunKind.open(path).run }
      assert_equal 65, error.exit_status
      assert_includes error.message, "run schema #{Mallard::Run::Directory::SCHEMA_VERSION + 1}"
      assert_includes error.message, "upgrade mallard"
    end
  end

  def test_the_current_schema_is_read
    path = copy("soak-leaky")
    %w[summary.json meta.json].each { |name| bump(path, name, to: Mallard::Run::Directory::SCHEMA_VERSION) }

    assert_instance_of Mallard::Run::SoakRun, Mallard::RunKind.open(path).run
  end

  def test_what_is_not_a_run_directory_is_not_found
    assert_raises(Mallard::NotFound) { Mallard::RunKind.open(File.join(@tmp, "nowhere")).run }
    error = assert_raises(Mallard::NotFound) { Mallard::RunKind.open(@tmp).run }
    assert_includes error.message, "is not a mallard run directory"
  end

  def test_a_damaged_meta_json_is_not_found_rather_than_a_crash
    File.write(File.join(@tmp, "meta.json"), '{"schema_version": 2, "comm')

    error = assert_raises(Mallard::NotFound) { Mallard::RunKind.open(@tmp).run }
    assert_includes error.message, "meta.json"
    assert_equal 66, error.exit_status
  end

  private

  def copy(name)
    FileUtils.cp_r(File.join(RUNS, name), @tmp)
    File.join(@tmp, name)
  end

  def bump(path, name, to: Mallard::Run::Directory::SCHEMA_VERSION + 1)
    file = File.join(path, name)
    File.write(file, JSON.generate(JSON.parse(File.read(file)).merge("schema_version" => to)))
  end
end
