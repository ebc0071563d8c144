# frozen_string_literal: true

require "open3"
require "rbconfig"

module Mallard
  module Target
    # The Ruby the app runs on (--ruby PATH): its directory comes first on the subject's PATH, so the app's
    # `ruby`, `puma`, `bundle` and `sidekiq` are that Ruby's, with its own gems; mallard's C extensions are built
    # for it (ExtensionBuild) and the agent finds them there. Checked when the command line is read: a path that
    # is not a Ruby is a usage error before anything starts.
    class SubjectRuby
      # Asked of the Ruby itself, without its gems or the user's RUBYOPT: what meta.json records.
      ASK = <<~RUBY
        require "rbconfig"
        c = RbConfig::CONFIG
        puts RUBY_VERSION, RUBY_DESCRIPTION, RbConfig.ruby, [c["LIBS"], c["MAINLIBS"]].join(" "),
             defined?(RubyVM::YJIT) ? "yes" : "no"
      RUBY
      CLEAN = { "RUBYOPT" => nil, "RUBYLIB" => nil, "GEM_HOME" => nil, "GEM_PATH" => nil }.freeze
      # Allocators a Ruby can be linked with (`--with-jemalloc` puts -ljemalloc in LIBS, as Fullstaq Ruby does).
      LINKED = { "jemalloc" => /-ljemalloc\b/, "tcmalloc" => /-ltcmalloc/, "mimalloc" => /-lmimalloc\b/ }.freeze

      attr_reader :path, :version, :description, :yjit_built, :linked_allocator

      # @param path [String] --ruby's value
      # @raise [UsageError] not an executable, or not a Ruby that answers
      def self.resolve(path)
        expanded = File.expand_path(path)
        unless File.file?(expanded) && File.executable?(expanded)
          raise UsageError, "--ruby #{path}: no executable there"
        end

        out, status = Open3.capture2e(CLEAN, expanded, "--disable-gems", "-e", ASK)
        lines = out.lines(chomp: true)
        unless status.success? && lines.size >= 5
          said = lines.last(2).join(" ")
          raise UsageError, "--ruby #{path} is not a Ruby that runs (#{said.empty? ? 'it printed nothing' : said})"
        end

        new(*lines.first(5))
      rescue SystemCallError => e
        raise UsageError, "--ruby #{path}: #{e.message.sub(/ - .*/, '')}"
      end

      # mallard's own Ruby, for a run without --ruby.
      def self.own
        yjit = defined?(RubyVM::YJIT) ? "yes" : "no"
        new(RUBY_VERSION, RUBY_DESCRIPTION, RbConfig.ruby,
            [RbConfig::CONFIG["LIBS"], RbConfig::CONFIG["MAINLIBS"]].join(" "), yjit)
      end

      def initialize(version, description, path, libs, yjit)
        @version = version
        @description = description
        @path = path
        @linked_allocator = LINKED.find { |_, flag| libs.to_s.match?(flag) }&.first
        @yjit_built = yjit == "yes"
      end

      def own? = File.expand_path(@path) == File.expand_path(RbConfig.ruby)
      def bindir = File.dirname(@path)

      # @param base [Hash] the environment it starts from
      # @param ext_dir [String, nil] where ExtensionBuild put the extensions for this Ruby
      # @return [Hash] its bin directory first on PATH; no gem paths of another Ruby
      def env(base: ENV, ext_dir: nil)
        path = [bindir, base["PATH"]].compact.join(File::PATH_SEPARATOR)
        { "PATH" => path, **CLEAN.slice("GEM_HOME", "GEM_PATH"),
          **(ext_dir ? { ExtensionAbi::ROOT_VARIABLE => File.dirname(ext_dir) } : {}) }
      end

      # For SubjectEnvironment: nothing for mallard's own Ruby; for another, its PATH, with mallard's extensions
      # built for it (once per Ruby ABI, cached). Built here, just before the app first starts on it.
      def subject_env
        return {} if own?

        @subject_env ||= env(ext_dir: ExtensionBuild.new(ruby: @path).call)
      end

      # Whether the app ran with YJIT as --yjit asked: as it saw itself at its end, else at its boot when a process
      # killed at the end could not say. An initializer may turn YJIT on whatever the environment said, and then a
      # run is not what it claims. A size must show as the code region YJIT reserved in the process (its maps:
      # Agent::YjitRegion), the one place the size it runs with shows.
      # @param mode [String] "on", "off" or a code region size in MiB ("16")
      # @param inside [Hash] meta.json's subject_ruby (#to_h with Analysis::RubyFigures.inside)
      # @return [String, nil] why the run is not what it claims; nil when it is
      def self.yjit_mismatch(mode, inside)
        seen = inside.fetch("yjit_at_end", nil).then { |at_end| at_end.nil? ? inside["yjit_at_boot"] : at_end }
        on = YjitMode.on?(mode)
        return region_mismatch(YjitMode.size_mib(mode), inside["yjit_region_bytes"]) if seen == on

        "YJIT was #{{ true => 'on', false => 'off' }.fetch(seen, 'not reported')} in the app, not #{on ? 'on' : 'off'}"
      end

      def self.region_mismatch(size_mib, bytes)
        return if size_mib.nil? || bytes == size_mib * 1024 * 1024

        reserved = bytes ? format("%g MiB", (bytes / 1024.0 / 1024).round(2)) : "not reported"
        "YJIT's code region was #{reserved} in the app, not the #{size_mib} MiB asked"
      end
      private_class_method :region_mismatch

      # For meta.json: the Ruby as asked from outside; YJIT on or off is read from inside the app (the agent).
      def to_h
        { "path" => @path, "version" => @version, "description" => @description, "yjit_built" => @yjit_built,
          "allocator_linked" => @linked_allocator }
      end
    end
  end
end
