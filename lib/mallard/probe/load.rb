# frozen_string_literal: true

require_relative "wrk"
require_relative "ruby_load"

module Mallard
  module Probe
    # Chooses the load client: wrk when it is installed, the built-in Ruby client otherwise.
    # Both take the same options and answer start, running?, stop, wait(timeout) and result.
    module Load
      # @param force_ruby [Boolean] use the built-in client even when wrk is available
      # @param options [Hash] url:, duration:, log_path:, paths:, requests:, concurrency:, timeout:,
      #   and threads: (wrk only; the Ruby client runs one thread per connection)
      # @return [Wrk, RubyLoad] not yet started
      def self.driver(force_ruby: false, **options)
        return Wrk.new(**options) if !force_ruby && Wrk.available?

        RubyLoad.new(**options.except(:threads))
      end

      def self.fallback_note
        "The built-in client runs in mallard's own process and shares the CPU with the app under test, " \
          "so the app looks slower than it is; install wrk for figures you can compare."
      end
    end
  end
end
