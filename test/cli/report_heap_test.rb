# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# `mallard report` on a heap run killed before it wrote summary.json and its third dump (the stored heap-leaky run,
# cut so): summarised again from its records, a failed measurement whose missing dump the view words.
class ReportHeapTest < Minitest::Test
  include CliRuns

  RUN = File.expand_path("../fixtures/runs/heap-leaky", __dir__)

  def setup
    @tmp = Dir.mktmpdir("mallard-report-heap-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_a_run_without_its_third_dump_says_which_were_written
    run = File.join(@tmp, "killed")
    FileUtils.cp_r(RUN, run)
    FileUtils.rm(Dir.glob(File.join(run, "{summary.json,heap/heap-*-3.*}")))
    status, out, err = run_cli("report", run)

    assert_equal 0, status, err
    assert_equal "mallard: #{run} has no summary.json; summarised from its raw files — failed\n", err
    assert_includes out, "failed measurement: 2 of the 3 dumps were written (the run ended before dump C was " \
                         "written), no retention"
  end
end
