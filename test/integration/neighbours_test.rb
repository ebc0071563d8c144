# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# soak --neighbours: copies of the app beside the one measured, each served and loaded alike on the same CPUs, none of
# them measured (a host's crowding, which compare --like takes from production); refused where there is no app
# directory to copy; gone with the run.
class NeighboursIntegrationTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  SCRIPTS = File.expand_path("../fixtures/scripts", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-neighbours-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_copies_run_beside_the_measured_app_loaded_alike_and_unmeasured
    tag = new_tag("neighbours")
    out_dir = File.join(@tmp, "run")
    out, err, status = mallard("soak", File.join(APPS, "stable"), "--neighbours", "2", "--duration", "2", "--json",
                               "--out", out_dir, env: { "MALLARD_TEST_TAG" => tag })
    assert_equal 0, status.exitstatus, err
    summary = JSON.parse(out)

    assert_equal 2, summary.dig("load", "neighbours")
    assert_loaded_alike(out_dir, summary.dig("load", "requests"))
    assert_equal [JSON.parse(File.read(File.join(out_dir, "meta.json")))["subject_pid"]], sampled_pids(out_dir),
                 "only the app measured is sampled: its copies are no part of its tree"
    assert eventually(5) { processes_left_by_mallard(tag).empty? }, -> { command_lines(processes_tagged(tag)) }
    report, = mallard("report", out_dir)
    assert_includes report, "beside 2 more copies of the app on its CPUs, each loaded alike (--neighbours)"
  end

  def test_neighbours_are_refused_where_there_is_no_app_directory_to_copy
    app = File.join(APPS, "stable")
    [[app, "--neighbours", "-1"], [app, "--neighbours", "33"], [app, "--neighbours", "1", "--concurrency", "auto"],
     ["--script", File.join(SCRIPTS, "no_cache.rb"), "--neighbours", "1"]].each do |args|
      out, err, status = mallard("soak", *args, "--out", File.join(@tmp, "refused"))

      assert_equal [64, ""], [status.exitstatus, out], "#{args.join(' ')}: #{err}"
      assert_match(/--neighbours/, err)
      refute File.exist?(File.join(@tmp, "refused")), "refused before anything was made"
    end
  end

  private

  # Each copy served as the app measured did, under the same connections on the same CPUs: not a tenth of it.
  def assert_loaded_alike(out_dir, requests)
    copies = (1..2).map { |number| JSON.parse(File.read(File.join(out_dir, "neighbour-#{number}", "load.json"))) }
    copies.each do |load|
      assert_operator load["requests"], :>, requests / 10, "a copy served #{load['requests']}, the app #{requests}"
      assert_equal 0, load["errors_total"], load.inspect
    end
    assert_match(/Puma starting/, File.read(File.join(out_dir, "neighbour-1", "subject.log")))
  end

  def sampled_pids(out_dir)
    File.readlines(File.join(out_dir, "samples.jsonl")).map { |line| JSON.parse(line) }
        .select { |record| record["kind"] == "memory" }.map { |record| record["pid"] }.uniq
  end
end
