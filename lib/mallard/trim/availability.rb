# frozen_string_literal: true

require "rbconfig"

module Mallard
  module Trim
    # Whether the glibc-trim C extension is built here, answered from the files alone: the catalog
    # asks without loading the extension, which would start trimming in mallard's own process.
    class Availability
      DIR = File.expand_path("..", __dir__)
      EXTENSION_NAME = "trim_ext.#{RbConfig::CONFIG['DLEXT']}".freeze

      def self.default
        @default ||= new(extension: File.join(DIR, EXTENSION_NAME))
      end

      # @param extension [String] where the built extension must be
      # @param reason_file [String] where ext/mallard/extconf.rb records why it built nothing
      def initialize(extension:, reason_file: extension.sub(/\.\w+\z/, ".unavailable"))
        @extension = extension
        @reason_file = reason_file
      end

      def available?
        File.file?(@extension)
      end

      # @return [String, nil] why the extension is not there; nil when it is
      def reason
        return if available?

        recorded_reason || "#{@extension} is missing; build it with `rake compile` in a checkout, " \
                           "or reinstall the gem with a C compiler and Ruby's headers"
      end

      private

      def recorded_reason
        File.read(@reason_file).strip.then { |text| text.empty? ? nil : text }
      rescue SystemCallError
        nil
      end
    end

    def self.available?
      Availability.default.available?
    end

    def self.unavailable_reason
      Availability.default.reason
    end
  end
end
