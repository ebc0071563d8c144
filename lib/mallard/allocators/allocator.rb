# frozen_string_literal: true

require_relative "../analysis/arena_limit"

module Mallard
  module Allocators
    # One memory configuration: the environment a child process needs to run under it, where its
    # library lives on this machine, who packages it, and how to tell that it took effect.
    class Allocator
      # Every configuration sets all of these (nil = unset), so a variable left in the user's
      # shell, say LD_PRELOAD=jemalloc, cannot leak into the glibc baseline.
      MANAGED_VARIABLES = %w[LD_PRELOAD MALLOC_ARENA_MAX MALLOC_CONF].freeze
      PACKAGE_SYSTEMS = { debian: "Debian/Ubuntu", alpine: "Alpine", homebrew: "Homebrew" }.freeze
      # Added to RUBYOPT with -I, so a child loads mallard's files from this very checkout or gem.
      LIB = File.expand_path("../..", __dir__)

      attr_reader :name, :summary, :malloc, :settings, :packages, :sonames

      # @return [String, nil] the catalog's configuration this one adds variables to (#configured); nil for the
      #   catalog's own
      attr_reader :base

      # @return [String, nil] the line it runs once the app has booted: "warmup" or "compact" (AfterBoot); nil: none
      attr_reader :after_boot

      # @return [Hash{String=>String}] what #configured added to its base: variables, and AfterBoot::SETTING
      attr_reader :added

      # @param malloc [String] the allocator detection must find in the process
      # @param settings [Hash] environment variables besides LD_PRELOAD
      # @param sonames [Array<String>] the library to preload, preferred name first; none for glibc
      # @param blocked [String, nil] why this configuration cannot be used at all in this build
      # @param requires [String, nil] a file of mallard's the Ruby process must load (-r in RUBYOPT)
      # @param extension [String, nil] the path suffix that shows in the process's maps once it has
      def initialize(name:, summary:, malloc:, finder:, settings: {}, sonames: [], packages: {}, blocked: nil,
                     requires: nil, extension: nil, base: nil, after_boot: nil, added: {})
        @definition = { name: name, summary: summary, malloc: malloc, finder: finder, settings: settings,
                        sonames: sonames, packages: packages, blocked: blocked, requires: requires,
                        extension: extension, base: base, after_boot: after_boot, added: added }
        @base = base
        @after_boot = after_boot
        @added = added
        @name = name
        @summary = summary
        @malloc = malloc
        @settings = settings
        @sonames = sonames
        @packages = packages
        @blocked = blocked
        @finder = finder
        @ruby_requires = [requires].compact
        @extension = extension
      end

      # @return [Array<String>] features a Ruby child must require, e.g. ["mallard/trim"]
      attr_reader :ruby_requires

      # This configuration as it would run on a host with cpus CPUs (glibc sizes its arena limit from the CPUs it
      # sees, Analysis::ArenaLimit): a glibc configuration that leaves the arena
      # limit to glibc gets the limit glibc would compute there, set explicitly and named in its summary.
      # @return [Allocator] self when nothing changes
      def for_production(cpus)
        return self unless malloc == "glibc" && !settings.key?("MALLOC_ARENA_MAX")

        limit = Analysis::ArenaLimit.for(cpus)
        Allocator.new(**@definition, settings: settings.merge("MALLOC_ARENA_MAX" => limit.to_s),
                                     summary: "#{summary}; arenas as on #{cpus} CPUs (MALLOC_ARENA_MAX=#{limit}, " \
                                              "glibc's own limit there)")
      end

      # This configuration with more environment variables, under a name of its own (compare --config), and an action
      # once the app has booted where they name one (AfterBoot::SETTING).
      # @param more [Hash{String=>String}] variables to set on top of this configuration's, and after_boot
      # @param summary [String, nil] what it is, where the variables added do not say (none added); nil: they do
      def configured(name, more, summary: nil)
        variables, action = AfterBoot.split(more)
        added = variables.map { |variable, value| "#{variable}=#{value}" }
        added << "#{AfterBoot.code(action)} after boot" if action
        Allocator.new(**@definition, name: name, settings: settings.merge(variables), base: base || self.name,
                                     after_boot: action || after_boot, added: @added.merge(more),
                                     summary: summary || "#{self.summary}; with #{added.join(' ')}")
      end

      # What this configuration adds to its base, on another of the catalog's instead (compare --cross), named by its
      # parts: "jemalloc/gc-cap".
      # @param other [Allocator]
      def onto(other) = other.configured("#{other.name}/#{name}", added)

      # How much a deployment must change to run this configuration (DeployEffort): nothing, an environment
      # variable, a line in the app's code (a file of mallard's required, an action after boot), a library to install
      # and preload.
      def deploy_effort
        return DeployEffort::LIBRARY unless sonames.empty?
        return DeployEffort::APP_CODE unless ruby_requires.empty? && after_boot.nil?

        settings.empty? ? DeployEffort::NOTHING : DeployEffort::ENVIRONMENT
      end

      def library_path
        return if @sonames.empty?

        @library_path = @finder.find(@sonames) unless defined?(@library_path)
        @library_path
      end

      def available?
        @blocked.nil? && (@sonames.empty? || !library_path.nil?)
      end

      def unavailable_reason
        return if available?

        @blocked || "#{@sonames.first} not found; install #{install_hint}"
      end

      def install_hint
        packages.map { |system, package| "#{package} (#{PACKAGE_SYSTEMS.fetch(system)})" }.join(", ")
      end

      # The variables to merge into a child's environment (nil values unset a variable).
      def env
        raise Error, "#{name} is unavailable: #{unavailable_reason}" unless available?

        MANAGED_VARIABLES.to_h { |var| [var, nil] }.merge(settings).merge("LD_PRELOAD" => library_path)
      end

      # RUBYOPT for a child under this configuration: the user's, after mallard's lib and the
      # files this configuration requires (none: the user's unchanged). Whoever builds a child's
      # RUBYOPT passes it through here, as the environment alone cannot load Ruby code.
      def rubyopt(user_rubyopt)
        return user_rubyopt if ruby_requires.empty?

        ["-I#{LIB}", *ruby_requires.map { |feature| "-r#{feature}" }, user_rubyopt].compact.join(" ")
      end

      # @param mapped_paths [Array<String>] the files mapped into the process (/proc/PID/maps)
      # @return [Array<String>] why the process does not run under this configuration; empty if it does
      def verify(detection, environ, mapped_paths: [])
        problems = []
        problems << "expected #{malloc} but the process uses #{detection.name}" unless detection.name == malloc
        ((MANAGED_VARIABLES - ["LD_PRELOAD"]) | settings.keys).each do |var|
          next if environ[var] == settings[var]

          problems << "#{var} is #{environ[var].inspect} in the process, expected #{settings[var].inspect}"
        end
        problems + extension_problems(mapped_paths)
      end

      # An extension is loaded only if the process is Ruby and required it; the environment cannot say.
      def extension_problems(mapped_paths)
        return [] if @extension.nil? || mapped_paths.any? { |path| path.end_with?("/#{@extension}") }

        ["#{@extension} is not loaded in the process; start it with " \
         "RUBYOPT=\"#{rubyopt(nil)}\" or require #{ruby_requires.first.inspect} in the app"]
      end

      def to_h
        { name: name, summary: summary, available: available?, library: library_path,
          settings: settings, unavailable_reason: unavailable_reason }
      end
    end
  end
end
