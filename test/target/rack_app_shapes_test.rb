# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# How RackApp serves compare --shape's variants, without starting them: Puma's flags for fork_worker, the line before
# fork in the rackup, Pitchfork's command and config file, and what a Ruby cannot run.
class RackAppShapesTest < Minitest::Test
  APP = File.expand_path("../fixtures/apps/shared_data", __dir__)

  def setup
    @dir = Dir.mktmpdir("mallard-rack-app-shapes")
    @app = Mallard::Target::RackApp.new(dir: APP)
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_refork_is_fork_worker_after_n_requests_and_no_preload_flag
    argv = command("2x5-refork=50").argv

    assert_equal ["--workers", "2", "--fork-worker=50"], argv[argv.index("--workers"), 3]
    refute_includes argv, "--preload"
  end

  # The shape's action follows the configuration's after boot in the one rackup the preloading master loads.
  def test_warmup_before_fork_is_a_line_after_the_app_in_the_preloaded_masters_rackup
    argv = command("2x5-warmup", after_boot: "compact").argv
    rackup = File.read(argv.last)

    assert_includes argv, "--preload"
    compact = Regexp.escape(Mallard::Allocators::AfterBoot.code("compact"))
    assert_match(/parse_file.*\n.*\n#{compact}\nProcess.warmup\nrun /, rackup)
  end

  def test_pitchfork_is_started_with_the_config_file_it_is_given
    argv = command("3x1-pitchfork=20").argv
    config = File.join(@dir, "pitchfork.rb")

    assert_equal ["pitchfork", "--config-file", config, "--env", "production", File.join(APP, "config.ru")], argv
    assert_match(/^worker_processes 3\nlisten "127.0.0.1:#{URI(@shaped.url).port}"\nrefork_after \[20\]\n\z/,
                 File.read(config))
    assert_includes @shaped.describe, "(Pitchfork, "
  end

  # mallard's own Ruby here is Debian's 3.1: no Process.warmup, and no Pitchfork on its PATH.
  def test_what_the_ruby_lacks_is_said_before_anything_runs
    ruby = Mallard::Target::SubjectRuby.own

    assert_match(/no Process.warmup .*write 2x5-compact/, @app.shape_refusal(shape("2x5-warmup"), ruby))
    assert_match(/Pitchfork is not installed for #{Regexp.escape(ruby.path)}: install it with/,
                 @app.shape_refusal(shape("2x1-pitchfork"), ruby))
    assert_nil @app.shape_refusal(shape("2x5-compact"), ruby)
    assert_nil @app.shape_refusal(shape("2x5-refork"), ruby)
  end

  private

  def shape(text) = Mallard::PumaShape.parse(text)

  def command(text, after_boot: nil)
    @shaped = @app.shaped(shape(text))
    @shaped.command(env: {}, run_dir: Mallard::Run::Directory.new(@dir), after_boot: after_boot)
  end
end
