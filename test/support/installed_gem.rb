# frozen_string_literal: true

require "fileutils"
require "open3"
require "rbconfig"
require "tmpdir"

# mallard as a user gets it: `gem build` from this checkout, then `gem install --local` (extensions compiled) into a
# private GEM_HOME. Built once per test process, removed when the tests end.
module InstalledGem
  ROOT = File.expand_path("../..", __dir__)
  INSTALL_TIMEOUT = 180

  module_function

  # @return [String] the private GEM_HOME holding the installed gem
  def home
    @home ||= build_and_install
  end

  # The installed gem's executable (RubyGems' wrapper in GEM_HOME/bin).
  def executable = File.join(home, "bin", "mallard")

  # @return [String] the installed gem's own directory (GEM_HOME/gems/mallard-VERSION)
  def gem_dir = Dir.glob(File.join(home, "gems", "mallard-*")).fetch(0)

  # A user's environment: nothing of this checkout's Bundler or load path, the private GEM_HOME first on GEM_PATH
  # and the system's gems (Debian's puma among them) after it.
  def env
    cleared = ENV.keys.grep(/\A(BUNDLE|BUNDLER|RUBY|GEM_)/).to_h { |key| [key, nil] }
    cleared.merge("GEM_HOME" => home, "GEM_PATH" => [home, *Gem.default_path].join(File::PATH_SEPARATOR))
  end

  def build_and_install
    dir = Dir.mktmpdir("mallard-gem")
    Minitest.after_run { FileUtils.remove_entry(dir) }
    package = File.join(dir, "mallard.gem")
    home = File.join(dir, "home")
    run!(Gem.ruby, "-S", "gem", "build", File.join(ROOT, "mallard.gemspec"), "--output", package, chdir: ROOT)
    # --local with --install-dir does not count the default gems as installed, and fiddle, the one dependency, is one
    # until Ruby 4.0: it is left to GEM_PATH, as the runs below load it, and pinning (--cpus 1) uses it.
    run!(Gem.ruby, "-S", "gem", "install", "--local", "--ignore-dependencies", "--install-dir", home, "--no-document",
         package, chdir: dir)
    home
  end

  def run!(*command, chdir:)
    out, status = Timeout.timeout(INSTALL_TIMEOUT) do
      Open3.capture2e(env_without_bundler, *command, chdir: chdir)
    end
    raise "`#{command.join(' ')}` failed:\n#{out}" unless status.success?
  end

  # Runs gem itself outside this checkout's bundle, which would otherwise restrict it to the Gemfile's gems.
  def env_without_bundler
    ENV.keys.grep(/\A(BUNDLE|BUNDLER|RUBYOPT|RUBYLIB)/).to_h { |key| [key, nil] }
  end
end
