# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "mallard/run/directory"

class DirectoryTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("mallard-directory-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_an_explicit_out_is_created_with_its_parents
    out = File.join(@tmp, "a", "b")
    run_dir = Mallard::Run::Directory.create(command: "soak", out: out)

    assert File.directory?(out)
    assert_equal out, run_dir.path
  end

  def test_an_empty_existing_out_is_used
    assert_equal @tmp, Mallard::Run::Directory.create(command: "soak", out: @tmp).path
  end

  # Samples are appended: reusing a run's directory would splice two runs into one series.
  def test_an_out_holding_an_earlier_run_is_refused_and_left_alone
    File.write(File.join(@tmp, "samples.jsonl"), "{}\n")

    error = assert_raises(Mallard::UsageError) { Mallard::Run::Directory.create(command: "soak", out: @tmp) }
    assert_includes error.message, "already holds files"
    assert_equal "{}\n", File.read(File.join(@tmp, "samples.jsonl"))
  end

  def test_an_out_that_is_a_file_is_refused
    file = File.join(@tmp, "summary.json")
    File.write(file, "{}")

    error = assert_raises(Mallard::UsageError) { Mallard::Run::Directory.create(command: "soak", out: file) }
    assert_includes error.message, "is a file"
  end

  # Refused as a usage error before anything runs, not a crash (exit 70) once the subject is up.
  def test_an_out_that_cannot_be_created_is_refused
    { "/proc/mallard-run" => "cannot create --out /proc/mallard-run", "/dev/null" => "is not a directory",
      "/dev/null/run" => "cannot create --out /dev/null/run" }.each do |out, message|
      error = assert_raises(Mallard::UsageError, out) { Mallard::Run::Directory.create(command: "soak", out: out) }

      assert_includes error.message, message
    end
  end

  def test_a_default_root_that_cannot_be_created_suggests_out
    error = assert_raises(Mallard::UsageError) do
      Mallard::Run::Directory.create(command: "soak", root: "/proc/mallard-runs")
    end

    assert_match(%r{cannot create run directory /proc/mallard-runs/.*give --out}, error.message)
  end

  def test_without_out_each_run_gets_a_new_directory
    now = Time.at(0)
    first = Mallard::Run::Directory.create(command: "soak", root: @tmp, now: now)
    second = Mallard::Run::Directory.create(command: "soak", root: @tmp, now: now)

    refute_equal first.path, second.path
    assert second.path.end_with?("-2")
  end

  # A byte that is not UTF-8 in a file read back costs neither the file nor the line: it reads as \xFF.
  def test_files_read_back_with_bytes_that_are_not_utf8_are_read_whole
    run_dir = Mallard::Run::Directory.new(@tmp)
    File.binwrite(run_dir.file("meta.json"), %({"target": {"description": "/app \xff"}}))
    File.binwrite(run_dir.file("samples.jsonl"), %({"t": 1, "note": "\xfe"}\n{"t": 2}\n))

    assert_equal "/app \\xFF", run_dir.read_json("meta.json").dig("target", "description")
    assert_equal [{ "t" => 1, "note" => "\\xFE" }, { "t" => 2 }],
                 Mallard::Run::JsonLines.read(run_dir.file("samples.jsonl")).records
  end
end
