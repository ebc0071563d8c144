# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# An app whose bundle has no puma is served anyway, from a Gemfile in the run directory that adds it;
# the app's own files stay untouched.
class PumaBundleTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-bundle-test")
    @app = File.join(@tmp, "app")
    FileUtils.cp_r(File.join(APPS, "pumaless"), @app)
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  # The Rails case end to end: a locked bundle without puma, `mallard soak DIR` on a real Puma.
  def test_an_app_locked_without_puma_is_soaked_under_puma_added_in_the_run_directory
    bundle_lock(@app)
    app_files = snapshot(@app)
    run_dir = File.join(@tmp, "run")
    out, err, status = mallard("soak", @app, "--duration", "2", "--json", "--out", run_dir)
    summary = JSON.parse(out)

    assert_equal 0, status.exitstatus, err
    assert_operator summary.dig("load", "requests"), :>, 0
    assert_equal 0, summary.dig("load", "errors")
    assert_includes summary.dig("target", "description"), "puma added to its bundle"
    assert_match(/^ {4}puma \(/, File.read(File.join(run_dir, "Gemfile.lock")))
    assert_match(/^ {4}rack \(#{locked_version(@app, 'rack')}\)/, File.read(File.join(run_dir, "Gemfile.lock")))
    assert_equal app_files, snapshot(@app), "the app's files are never written to"
  end

  def test_puma_comes_from_the_apps_bundle_unless_it_lacks_it
    bundle = Mallard::Target::PumaBundle.new(@app)
    assert bundle.adds_puma?, "a Gemfile without puma, unlocked"

    File.write(File.join(@app, "Gemfile"), "gem 'rack'\ngem 'puma'\n")
    refute bundle.adds_puma?
    assert_equal %w[bundle exec puma], bundle.executable

    File.write(File.join(@app, "Gemfile.lock"), "GEM\n  specs:\n    rack (2.2.0)\n")
    assert bundle.adds_puma?, "the lockfile decides when there is one"

    no_bundle = Mallard::Target::PumaBundle.new(File.join(APPS, "hello"))
    refute no_bundle.adds_puma?
    assert_equal %w[puma], no_bundle.executable
  end

  # Bundler reads .bundle/config next to the Gemfile it is given, so the app's settings are pointed at,
  # with a relative path made absolute (it would otherwise land in the run directory).
  def test_the_apps_bundler_settings_follow_it
    FileUtils.mkdir_p(File.join(@app, ".bundle"))
    File.write(File.join(@app, ".bundle", "config"), %(---\nBUNDLE_PATH: "vendor/bundle"\n))
    env = Mallard::Target::PumaBundle.new(@app).bundler_settings

    assert_equal File.join(@app, "vendor", "bundle"), env["BUNDLE_PATH"]
    assert_equal File.join(@app, ".bundle"), env["BUNDLE_APP_CONFIG"]
    assert_equal "false", env["BUNDLE_FROZEN"]
  end

  def test_a_bundle_the_installed_gems_cannot_satisfy_says_what_to_add
    File.write(File.join(@app, "Gemfile"), %(gem "rack"\ngem "mallard-no-such-gem"\n))
    Dir.mktmpdir do |dir|
      error = assert_raises(Mallard::SubjectFailed) do
        Mallard::Target::RackApp.new(dir: @app).command(env: {}, run_dir: Mallard::Run::Directory.new(dir))
      end

      assert_includes error.message, %(add `gem "puma"`)
      assert(error.output_tail.any? { |line| line.include?("mallard-no-such-gem") }, error.output_tail.inspect)
    end
  end

  private

  def bundle_lock(dir)
    env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil)
    output, status = Open3.capture2e(env.merge("BUNDLE_GEMFILE" => File.join(dir, "Gemfile")), "bundle", "lock",
                                     "--local", chdir: dir)
    assert status.success?, output
  end

  def locked_version(dir, gem)
    File.read(File.join(dir, "Gemfile.lock"))[/^ {4}#{gem} \(([^)]+)\)/, 1]
  end

  def snapshot(dir)
    Dir.glob("**/*", File::FNM_DOTMATCH, base: dir).sort.to_h { |path| [path, File.mtime(File.join(dir, path))] }
  end
end
