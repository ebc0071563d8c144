# frozen_string_literal: true

module Mallard
  module Target
    # An app for `mallard boot`: a directory with a Gemfile, booted by the probe (BootProbe::Program) as a Rails
    # app when it has config/environment.rb, else through Bundler.require.
    class BootApp
      PROBE = File.expand_path("../boot_probe/program.rb", __dir__)
      GEMFILES = %w[Gemfile gems.rb].freeze
      # Production Rails refuses to boot without a secret; a boot measurement needs none, so a placeholder
      # stands in when the environment has no SECRET_KEY_BASE (a real one, or RAILS_MASTER_KEY, is left alone).
      PLACEHOLDER_SECRET = "mallard-boot-placeholder-#{'0' * 64}".freeze

      attr_reader :dir, :environment

      # @raise [UsageError] when dir is not a directory with a Gemfile
      def initialize(dir, environment:)
        raise UsageError, "no directory #{dir}" unless File.directory?(dir.to_s)

        @dir = File.expand_path(dir)
        @environment = environment
        return if gemfile

        raise UsageError, "#{dir} has no Gemfile: mallard boot measures a Bundler app (a Rails app, or any app " \
                          "whose Gemfile lists what it requires)"
      end

      def rails? = File.file?(File.join(@dir, "config", "environment.rb"))
      def mode = rails? ? "rails" : "bundler"
      def kind = mode
      def url = nil

      def describe
        "#{rails? ? 'Rails' : 'Bundler'} app #{Text.scrub(@dir)} (#{@environment})"
      end

      def gemfile
        GEMFILES.map { |name| File.join(@dir, name) }.find { |path| File.file?(path) }
      end

      # The probe's environment: the user's, less mallard's bundler settings, under the allocator's, with the
      # app's Gemfile and environment.
      # @param allocator [Allocators::Allocator, nil]
      # @param ruby [Hash] SubjectRuby#subject_env
      def env(allocator, base: ENV, ruby: {})
        env = SubjectEnvironment.build(allocator_env: allocator&.env || {}, agent: nil, base: base,
                                       requires: allocator&.ruby_requires || [], ruby: ruby)
        env.merge("BUNDLE_GEMFILE" => gemfile, "RAILS_ENV" => @environment, "RACK_ENV" => @environment,
                  "MALLARD_BOOT_MODE" => mode).merge(secret(base))
      end

      def command(ruby = RbConfig.ruby)
        [ruby, PROBE]
      end

      private

      def secret(base)
        own = %w[SECRET_KEY_BASE RAILS_MASTER_KEY].any? { |name| !base[name].to_s.empty? } ||
              File.file?(File.join(@dir, "config", "master.key"))
        return {} if own || !rails?

        { "SECRET_KEY_BASE" => PLACEHOLDER_SECRET }
      end
    end
  end
end
