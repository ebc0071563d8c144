# frozen_string_literal: true

require "test_helper"

# compare --modes' refusals, all before anything runs (exit 64, no run directory): a target that is not a Solid Queue
# worker, a mode not Solid Queue's, a mode named twice; and the modes crossing the
# configurations as shapes do.
class CompareModesCliTest < Minitest::Test
  include CliRuns

  STABLE = File.expand_path("../fixtures/apps/stable", __dir__)
  SOLID_QUEUE = File.expand_path("../fixtures/apps/solid_queue", __dir__)
  ENQUEUE = File.join(SOLID_QUEUE, "workload.rb")
  STEADY_JOBS = File.expand_path("../fixtures/jobs/steady.rb", __dir__)

  def setup
    @out = Dir.mktmpdir("mallard-compare-modes")
  end

  def teardown
    FileUtils.remove_entry(@out)
  end

  def test_modes_need_a_solid_queue_worker
    assert_refused("--modes applies to a Solid Queue worker (--jobs solid_queue), not a rack target", STABLE,
                   "--modes", "fork,async")
    assert_refused("not a sidekiq target", "--modes", "fork,async", "--sidekiq", "--workload", STEADY_JOBS, "--",
                   "sidekiq")
  end

  def test_one_mode_or_modes_not_both
    assert_refused("give --mode or --modes, not both", *solid_queue, "--mode", "async", "--modes", "fork,async")
  end

  def test_a_mode_not_solid_queues_is_refused
    { "fork,threads" => "--modes takes fork, async, puma, not threads",
      "fork,fork" => "--modes names a mode twice" }.each do |list, message|
      assert_refused(message, *solid_queue, "--modes", list)
    end
  end

  # Puma mode starts the app's Puma, whose config must load Solid Queue's plugin: refused before any row runs.
  def test_puma_mode_needs_the_plugin_in_the_apps_puma_config
    app = File.join(@out, "app")
    FileUtils.cp_r(SOLID_QUEUE, app)
    File.write(File.join(app, "config/puma.rb"), "port ENV.fetch(\"PORT\", 3000)\n")
    status, _out, err = run_cli("compare", "--out", File.join(@out, "run"), "--jobs", "solid_queue", "--workload",
                                ENQUEUE, "--modes", "fork,puma", app)

    assert_equal 66, status, err
    assert_includes err, "no `plugin :solid_queue` in #{app}/config/puma.rb"
    refute File.exist?(File.join(@out, "run")), "refused before anything ran"
  end

  # Modes cross the configurations: 2 configurations × 2 modes are 4 rows, every run with the agent.
  def test_modes_multiply_the_rows_planned
    assert_refused("4 rows × 30 repeats is 120 runs", *solid_queue, "--allocators", "glibc,glibc-arena2", "--modes",
                   "fork,async", "--repeat", "30")
  end

  private

  def solid_queue = ["--jobs", "solid_queue", "--workload", ENQUEUE, SOLID_QUEUE]

  def assert_refused(message, *argv)
    status, _out, err = run_cli("compare", "--out", File.join(@out, "run"), *argv)

    assert_equal 64, status, err
    assert_includes err, message
    refute File.exist?(File.join(@out, "run")), "refused before anything ran"
  end
end
