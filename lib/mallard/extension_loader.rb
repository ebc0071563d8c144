# frozen_string_literal: true

require "rbconfig"
require_relative "extension_abi"

module Mallard
  # Loads one of mallard's optional C extensions, or says why it cannot — and never one built for another Ruby.
  # Where it looks, in order: the extensions mallard built for the running Ruby (ExtensionAbi.dir, built when
  # mallard starts an app on it); this gem's lib directory, where `rake compile` and `gem install` put them,
  # only when extensions.abi there names the running Ruby; else the load path (an installed gem's extension
  # directory). The agent uses it inside the app, so it loads nothing else of mallard's.
  module ExtensionLoader
    DIR = File.expand_path(__dir__)
    STAMP = "extensions.abi"

    module_function

    # @param name [String] the extension's file name in lib/mallard, e.g. "heap_scan_ext"
    # @param constant [Symbol] the module it defines under Mallard
    # @return [Array(Module, nil), Array(nil, String)] the extension, or why it is not there
    def load(name, constant)
      require path(name)
      [Mallard.const_get(constant), nil]
    rescue LoadError, StandardError => e
      [nil, e.message]
    end

    # @return [String] what to require
    # @raise [LoadError] why there is nothing for this Ruby
    def path(name)
      built = File.join(ExtensionAbi.dir, "mallard")
      return File.join(built, name) if File.file?(File.join(built, file_name(name)))

      reason = recorded_reason(built, name) || recorded_reason(DIR, name)
      raise LoadError, reason if reason
      return installed(name) unless File.file?(File.join(DIR, file_name(name)))

      check_stamp(name)
      File.join(DIR, name)
    end

    # An installed gem's extension directory, on the running Ruby's own load path.
    def installed(name)
      $LOAD_PATH.resolve_feature_path("mallard/#{name}") ? "mallard/#{name}" : raise(LoadError, not_built_reason(name))
    end

    def file_name(name) = "#{name}.#{RbConfig::CONFIG['DLEXT']}"

    # Loading lib/mallard's copy into a Ruby it was not built for fails at best, and at worst maps a second libruby.
    def check_stamp(name)
      stamp = File.read(File.join(DIR, STAMP)).strip
      return if stamp == ExtensionAbi.key

      raise LoadError, "#{DIR}/#{file_name(name)} was built for another Ruby (#{stamp}), not this one " \
                       "(#{RUBY_VERSION} at #{RbConfig.ruby}); mallard builds its extensions for the app's Ruby " \
                       "when it starts the app (--ruby PATH)"
    rescue SystemCallError
      raise LoadError, "#{DIR}/#{file_name(name)} does not say which Ruby it was built for (no #{STAMP}); " \
                       "rebuild it with `rake compile`"
    end

    # Why ext/*/extconf.rb built nothing, if it recorded a reason.
    def recorded_reason(dir, name)
      File.read(File.join(dir, "#{name}.unavailable")).strip.then { |text| text.empty? ? nil : text }
    rescue SystemCallError
      nil
    end

    def not_built_reason(name)
      "mallard/#{name} is not built; build it with `rake compile` in a checkout, " \
        "or reinstall the gem with a C compiler and Ruby's headers"
    end
  end
end
