# frozen_string_literal: true

module Mallard
  module Report
    # How to deploy a recommendation that runs another Ruby than the baseline's (`compare --rubies`) or turns
    # YJIT on or sizes its code region (`compare --yjit`): the version file and Gemfile line, the image, how to build
    # a Ruby linked with jemalloc as the one measured was (what Fullstaq Ruby ships), and how to check it took effect.
    # Values come from the Ruby mallard ran (its version and linked allocator) and are refused unless of a
    # conservative shape, as DeploySnippets' are.
    module RubyChangeSnippets
      TITLES = { ruby_version: "Ruby version (.ruby-version and Gemfile)", dockerfile_ruby: "Dockerfile (the Ruby)",
                 build_ruby: "Building that Ruby", yjit: "YJIT", verify_ruby: "Check the Ruby in production" }.freeze
      VERSION = /\A\d+\.\d+\.\d+\z/
      # The allocators Ruby's own configure links with (--with-jemalloc); another linked one was built by hand.
      CONFIGURE_LINKS = %w[jemalloc].freeze

      module_function

      # @param row [Summary::Row] the recommended configuration
      # @param baseline [Summary::Row] the baseline's
      # @return [Hash{String=>String}] title => text; empty when both run the same Ruby with YJIT alike
      def titled(row, baseline)
        snippets = {}
        snippets.merge!(ruby(row.ruby)) if other_ruby?(row, baseline)
        snippets[:yjit] = yjit(row.yjit) if YjitMode.on?(row.yjit) && row.yjit != baseline&.yjit
        snippets.transform_keys { |key| TITLES.fetch(key) }
      end

      def other_ruby?(row, baseline)
        row.ruby && row.ruby["path"] != baseline&.ruby&.fetch("path", nil)
      end

      def ruby(ruby)
        version = ruby["version"].to_s
        linked = ruby["allocator_linked"]
        raise ArgumentError, "not a Ruby version: #{version.inspect}" unless version.match?(VERSION)

        { ruby_version: "# .ruby-version (rbenv, asdf, chruby)\n#{version}\n\n# Gemfile\nruby \"#{version}\"",
          dockerfile_ruby: dockerfile(version, linked), build_ruby: (build(version, linked) if linked),
          verify_ruby: verify(version, linked) }.compact
      end

      def dockerfile(version, linked)
        return "FROM ruby:#{version}-slim" unless linked

        "# The official images' Ruby is not linked with #{linked}: build Ruby #{version} in your image as below\n" \
          "# (or use an image that ships a Ruby linked with it, such as Fullstaq Ruby's #{version}-#{linked} variant)"
      end

      def build(version, linked)
        unless CONFIGURE_LINKS.include?(linked)
          return "# Ruby's configure links only jemalloc; the Ruby you measured was linked with #{linked} by hand"
        end

        "# with ruby-build (rbenv install, or ruby-build in a Dockerfile); needs the #{linked} development package\n" \
          "# (Debian/Ubuntu: apt-get install lib#{linked}-dev)\n" \
          "RUBY_CONFIGURE_OPTS=--with-#{linked} rbenv install #{version}"
      end

      def verify(version, linked)
        check = "`ruby -e 'puts RUBY_VERSION, RbConfig::CONFIG[\"LIBS\"]'` on the deployed image prints #{version}"
        return "#{check}." unless linked

        "#{check} and -l#{linked} among the libraries; `mallard doctor PID` on an app process says Allocator " \
          "#{linked} (linked)."
      end

      # YJIT as a row ran it: on, or on with a code region of its size (compare --yjit 16), which only an option sets.
      # @param mode [String] "on" or a size in MiB (YjitMode)
      def yjit(mode)
        where = "in the app's environment (Dockerfile ENV, heroku config:set, systemd Environment=)"
        size = YjitMode.size_mib(mode)
        unless size
          return "# YJIT on, as measured: #{where}\nRUBY_YJIT_ENABLE=1\n" \
                 "# or in an initializer (Rails 7.2+ does this for you): RubyVM::YJIT.enable"
        end

        "# YJIT on with a #{size} MiB code region, as measured: #{where}\nRUBY_YJIT_ENABLE=1\n" \
          "RUBYOPT=#{YjitMode.option(mode)}\n# added to any RUBYOPT the app already has; Ruby 3.3's " \
          "RubyVM::YJIT.enable takes no size"
      end

      private_class_method :other_ruby?, :ruby, :dockerfile, :build, :verify
    end
  end
end
