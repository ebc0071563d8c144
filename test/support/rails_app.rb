# frozen_string_literal: true

require "fileutils"
require "tmpdir"

# A real Rails application, generated once per test process by `rails new` from Debian's ruby-rails (Rails 6.1)
# and bundled from the installed gems (`bundle install --local`: no network), as ../shared/TESTING.md describes.
# Generating takes a few seconds, so every test shares the one app; it is removed when the process exits.
module RailsApp
  # What TESTING.md leaves out of the generated Gemfile: gems Debian does not package.
  UNPACKAGED = %w[jbuilder web-console rack-mini-profiler byebug sass-rails turbolinks tzinfo-data].freeze
  SKIPS = %w[--skip-bundle --skip-webpack-install --skip-javascript --skip-git --skip-test --skip-system-test
             --skip-bootsnap --skip-spring --skip-listen --skip-action-cable --skip-sprockets].freeze

  module_function

  # @return [String] the app's directory
  def path
    @path ||= generate
  end

  # The environment for running the app's Ruby: none of the test runner's own bundler settings.
  def clean_env
    Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil)
  end

  # A copy of the app in root with a page, /rows, that renders 3,000 rows through Rails' router and middleware
  # stack: load for the tests and benchmarks that need a real Rails app busy.
  # @return [String] the copy's directory
  def with_rows_page(root)
    app = File.join(root, "rows-app")
    FileUtils.cp_r(path, app)
    File.write(File.join(app, "config", "routes.rb"), <<~RUBY)
      Rails.application.routes.draw do
        get "/rows", to: proc { [200, { "Content-Type" => "text/plain" },
                                 [Array.new(3_000) { |i| "row \#{i} \#{'x' * (i % 50)}" }.join("\\n")]] }
      end
    RUBY
    app
  end

  def generate
    root = Dir.mktmpdir("mallard-rails")
    at_exit { FileUtils.remove_entry(root) }
    app = File.join(root, "app")
    run(root, "rails", "new", app, *SKIPS)
    gemfile = File.join(app, "Gemfile")
    File.write(gemfile, File.readlines(gemfile).reject { |line| UNPACKAGED.any? { |gem| line.include?(gem) } }.join)
    run(app, "bundle", "install", "--local")
    app
  end

  # A copy of the app that boots through bootsnap (Debian's ruby-bootsnap), its caches filled by one boot first:
  # bootsnap replaces Kernel#require with its own path resolution and loads compiled code from its cache.
  def with_bootsnap(root)
    app = File.join(root, "bootsnap-app")
    FileUtils.cp_r(path, app)
    File.write(File.join(app, "Gemfile"), "gem \"bootsnap\", require: false\n", mode: "a")
    boot = File.join(app, "config", "boot.rb")
    File.write(boot,
               File.read(boot).sub(%(require "bundler/setup"), %(require "bundler/setup"\nrequire "bootsnap/setup")))
    run(app, "bundle", "install", "--local")
    run(app, "ruby", "-e", 'require "./config/environment"') # fills bootsnap's caches
    app
  end

  def run(dir, *command)
    env = clean_env.merge("RAILS_ENV" => "production", "SECRET_KEY_BASE" => "x" * 64)
    output, status = Open3.capture2e(env, *command, chdir: dir)
    raise "`#{command.join(' ')}` failed in #{dir} (is ruby-rails installed? bin/setup --test):\n#{output}" \
      unless status.success?
  end
end
