# frozen_string_literal: true

require "fileutils"
require "open3"
require_relative "extension_abi"

module Mallard
  # Builds mallard's C extensions for another Ruby (the app's, --ruby PATH) into ExtensionAbi's cache, once per
  # Ruby ABI: each with that Ruby's own extconf and headers, each .so installed by rename so that a process
  # mapping the old one never sees a half-written file. The agent inside the app then finds them by its own key.
  # What cannot be built is recorded next to them (NAME.unavailable) for the agent to say so.
  class ExtensionBuild
    SOURCES = ExtensionAbi::SOURCES
    DONE = "complete"
    # ExtensionAbi.dir asked of the other Ruby, in a clean environment (no RUBYOPT, no bundle of mallard's).
    ASK = "print Mallard::ExtensionAbi.dir"
    CLEAN = { "RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_GEMFILE" => nil, "BUNDLE_BIN_PATH" => nil,
              "GEM_HOME" => nil, "GEM_PATH" => nil }.freeze

    # @param ruby [String] the Ruby to build for
    # @param root [String] the cache (MALLARD_EXT_DIR for the app, so that it looks where this built)
    def initialize(ruby:, root: ExtensionAbi.root)
      @ruby = ruby
      @root = root
      @env = CLEAN.merge(ExtensionAbi::ROOT_VARIABLE => root)
    end

    # @return [String] the directory holding mallard/NAME.so for that Ruby (built now unless it was)
    # @raise [Error] the Ruby cannot run at all
    def call
      dir = ask_dir
      return dir if File.file?(File.join(dir, DONE))

      FileUtils.mkdir_p(@root)
      File.open(File.join(@root, ".lock"), File::RDWR | File::CREAT, 0o644) do |lock|
        lock.flock(File::LOCK_EX) # another mallard building the same: wait, then reuse
        build(dir) unless File.file?(File.join(dir, DONE))
      end
      dir
    end

    private

    def ask_dir
      lib = File.expand_path("..", __dir__)
      out, status = Open3.capture2e(@env, @ruby, "-I", lib, "-rmallard/extension_abi", "-e", ASK)
      raise Error, "#{@ruby} did not run: #{out.lines.last(3).join.strip}" unless status.success?

      out.strip
    rescue SystemCallError => e
      raise Error, "#{@ruby} did not run: #{e.message}"
    end

    # Every extension is tried; only when all built (or recorded why not) is the directory marked done.
    def build(dir)
      out = File.join(dir, "mallard")
      FileUtils.mkdir_p(out)
      results = ExtensionAbi::EXTENSIONS.map { |source, name| build_one(source, name, out) }
      File.write(File.join(dir, DONE), "") if results.all?
    ensure
      FileUtils.rm_rf(File.join(dir, "build"))
    end

    # @return [Boolean] whether it built, or its extconf recorded why it cannot here
    def build_one(source, name, out)
      work = File.join(File.dirname(out), "build", source)
      FileUtils.mkdir_p(work)
      env = @env.merge("MALLARD_EXT_OUT" => out)
      log = run(env, work, [@ruby, File.join(SOURCES, source, "extconf.rb")]) || run(env, work, %w[make])
      return install(work, name, out) unless log

      File.write(File.join(out, "#{name}.unavailable"), "could not build #{name} for #{@ruby}: #{log}\n")
      false
    end

    # @return [String, nil] the end of the failing step's output; nil when it succeeded
    def run(env, dir, argv)
      output, status = Open3.capture2e(env, *argv, chdir: dir)
      status.success? ? nil : output.lines.last(5).join.strip
    rescue SystemCallError => e
      e.message
    end

    def install(work, name, out)
      built = File.join(work, "#{name}.#{RbConfig::CONFIG['DLEXT']}")
      return File.file?(File.join(out, "#{name}.unavailable")) unless File.file?(built)

      temporary = File.join(out, ".#{File.basename(built)}.#{Process.pid}")
      FileUtils.cp(built, temporary)
      File.rename(temporary, File.join(out, File.basename(built)))
      true
    end
  end
end
