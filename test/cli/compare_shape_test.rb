# frozen_string_literal: true

require "test_helper"

# compare --shape's refusals, all before anything runs (exit 64, no run directory): a shape Puma cannot run, a target
# whose tree is not mallard's to shape, counts a shape sets given beside it, and a closed loop.
class CompareShapeCliTest < Minitest::Test
  include CliRuns

  STABLE = File.expand_path("../fixtures/apps/stable", __dir__)
  STEADY_JOBS = File.expand_path("../fixtures/jobs/steady.rb", __dir__)

  def setup
    @out = Dir.mktmpdir("mallard-compare-shape")
  end

  def teardown
    FileUtils.remove_entry(@out)
  end

  def test_a_bad_shape_is_refused
    { "2x5,2xx" => "--shape takes WxT", "0x5-nopreload" => "single mode (0 workers) has no master",
      "2x5,2x5" => "--shape names a shape twice" }.each do |list, message|
      assert_refused(message, STABLE, "--shape", list, "--rate", "50")
    end
  end

  # The variants' own refusals: counts a variant cannot run, and what the Ruby (mallard's own here, Debian's 3.1) lacks:
  # Process.warmup (-compact is named instead), and Pitchfork where nothing puts it on that Ruby's PATH.
  def test_a_variant_the_tree_or_the_ruby_cannot_run_is_refused
    { "1x5-refork" => "give 2 or more workers", "2x5-pitchfork" => "one request at a time per worker: write 2x1",
      "0x5-warmup" => "single mode (0 workers) has no master" }.each do |list, message|
      assert_refused(message, STABLE, "--shape", list, "--rate", "50")
    end
    assert_refused("has no Process.warmup (Ruby 3.3 and later): write 2x5-compact", STABLE, "--shape", "2x5-warmup",
                   "--rate", "50")
    assert_refused("Pitchfork is not installed for #{RbConfig.ruby}", STABLE, "--shape", "2x1-pitchfork",
                   "--rate", "50")
  end

  def test_shapes_need_a_rack_app
    assert_refused("--shape applies to an app directory served by Puma, not a command target",
                   "--shape", "1x5", "--rate", "50", "--url", "http://127.0.0.1:{port}/", "--", "ruby", "{port}")
    assert_refused("not a sidekiq target", "--shape", "1x5", "--sidekiq", "--workload", STEADY_JOBS, "--", "sidekiq")
  end

  def test_a_shape_sets_workers_and_threads_and_needs_an_open_loop
    assert_refused("drop --workers and --threads", STABLE, "--shape", "1x5", "--rate", "50", "--workers", "2",
                   "--threads", "3")
    assert_refused("give --rate N", STABLE, "--shape", "1x5,2x5")
  end

  # Shapes cross the other axes: 2 configurations × 3 shapes are 6 rows.
  def test_shapes_multiply_the_rows_planned
    assert_refused("6 rows × 20 repeats and one run each with the agent is 126 runs", STABLE, "--allocators",
                   "glibc,glibc-arena2", "--shape", "1x5,2x5,2x5-nopreload", "--rate", "50", "--repeat", "20")
  end

  private

  def assert_refused(message, *argv)
    status, _out, err = run_cli("compare", "--out", File.join(@out, "run"), *argv)

    assert_equal 64, status, err
    assert_includes err, message
    refute File.exist?(File.join(@out, "run")), "refused before anything ran"
  end
end
