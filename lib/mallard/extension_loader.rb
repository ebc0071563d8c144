# frozen_string_literal: true

require "rbconfig"

module Mallard
  # Loads one of mallard's optional C extensions, or says why it cannot: from this gem's lib directory, where
  # `rake compile` and `gem install` put them, else from the load path (an installed gem's extension directory);
  # the reason ext/*/extconf.rb recorded for building nothing comes first. The agent uses it inside the app, so
  # it loads nothing else of mallard's.
  module ExtensionLoader
    DIR = File.expand_path(__dir__)

    module_function

    # @param name [String] the extension's file name in lib/mallard, e.g. "heap_scan_ext"
    # @param constant [Symbol] the module it defines under Mallard
    # @return [Array(Module, nil), Array(nil, String)] the extension, or why it is not there
    def load(name, constant)
      if File.file?(File.join(DIR, "#{name}.#{RbConfig::CONFIG['DLEXT']}"))
        require File.join(DIR, name)
      else
        require "mallard/#{name}"
      end
      [Mallard.const_get(constant), nil]
    rescue LoadError, StandardError => e
      [nil, recorded_reason(name) || not_built_reason(name, e)]
    end

    def recorded_reason(name)
      File.read(File.join(DIR, "#{name}.unavailable")).strip.then { |text| text.empty? ? nil : text }
    rescue SystemCallError
      nil
    end

    def not_built_reason(name, error)
      "mallard/#{name} is not built (#{error.message}); build it with `rake compile` in a checkout, " \
        "or reinstall the gem with a C compiler and Ruby's headers"
    end
  end
end
