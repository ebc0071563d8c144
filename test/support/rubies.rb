# frozen_string_literal: true

require "open3"

# The Rubies `bin/setup --test` builds from Debian's source package (bin/rubies): the in-app tests run on them.
# Never skipped: a Ruby that is not built fails the test, as it fails CI, which installs everything.
module Rubies
  ROOT = File.expand_path("../..", __dir__)
  STOCK = "3.3.8"
  JEMALLOC = "3.3.8-jemalloc"

  module_function

  # @return [String] the path of that Ruby's `ruby`
  def path(name)
    all.fetch(name) { raise Minitest::Assertion, "Ruby #{name} is not built: run bin/setup --rubies (#{listing})" }
  end

  def all
    @all ||= listing.lines.to_h { |line| line.split(" ", 2).map(&:strip) }.select { |_, ruby| File.executable?(ruby) }
  end

  def listing
    @listing ||= begin
      out, err, = Open3.capture3(File.join(ROOT, "bin", "rubies"), "--list")
      out.empty? ? err.strip : out
    end
  end

  # mallard's extensions built for that Ruby (once per ABI, cached): the directory holding mallard/NAME.so.
  def extensions(name)
    @extensions ||= {}
    @extensions[name] ||= Mallard::ExtensionBuild.new(ruby: path(name)).call
  end

  # The environment an app on that Ruby gets from mallard: its bin first on PATH, the extensions built for it,
  # YJIT on (as production 3.3 apps run).
  def env(name)
    Mallard::Target::SubjectRuby.resolve(path(name)).env(ext_dir: extensions(name))
                                .merge("RUBY_YJIT_ENABLE" => "1", "RUBYOPT" => nil, "RUBYLIB" => nil,
                                       "BUNDLE_GEMFILE" => nil)
  end
end
