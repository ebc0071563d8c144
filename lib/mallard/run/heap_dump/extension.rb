# frozen_string_literal: true

require "rbconfig"

module Mallard
  module Run
    module HeapDump
      # mallard/heap_scan_ext (ext/mallard_heap_scan), the C pass that counts what Tally counts, ~10 times
      # faster and allocating nothing per object. Optional: where it is not built, available? is false and
      # unavailable_reason says why, and HeapDump.scan uses Tally.
      module Extension
        NAME = "heap_scan_ext"
        DIR = File.expand_path("../..", __dir__)
        # Window bounds the C pass takes: they fit its 64-bit integers with room to spare.
        BOUND = -(2**62)..(2**62)

        class << self
          # @return [String, nil] why the extension is not loaded; nil when it is
          attr_reader :unavailable_reason

          def available? = !@extension.nil?

          # Tally.tally's result, from the C pass; from Tally for a window whose bounds are not integers.
          # @raise [SystemCallError] when the file cannot be read
          def tally(path, window)
            bounds = bounds(window)
            return Tally.tally(path, window) if bounds == :unsupported

            @extension.scan(path, bounds) { |raw| HeapDump.decode(raw) }
          end

          private

          # cover?'s test as (low, high]: nil for no window; :unsupported where only cover? can tell.
          def bounds(window)
            return if window.nil?
            return :unsupported unless window.is_a?(Range) && [window.begin, window.end].all? { |b| bound?(b) }

            high = window.end
            [window.begin&.pred, window.exclude_end? && high ? high - 1 : high]
          end

          def bound?(value) = value.nil? || (value.is_a?(Integer) && BOUND.cover?(value))

          def setup
            @extension = load_extension
          end

          # From this gem's lib directory, where `rake compile` and `gem install` put it; else from the load path
          # (an installed gem's extension directory).
          def load_extension
            if File.file?(File.join(DIR, "#{NAME}.#{RbConfig::CONFIG['DLEXT']}"))
              require File.join(DIR, NAME)
            else
              require "mallard/#{NAME}"
            end
            HeapScanExt
          rescue LoadError, StandardError => e
            @unavailable_reason = recorded_reason || not_built_reason(e)
            nil
          end

          # ext/mallard_heap_scan/extconf.rb's reason for building nothing, if it had one.
          def recorded_reason
            File.read(File.join(DIR, "#{NAME}.unavailable")).strip.then { |text| text.empty? ? nil : text }
          rescue SystemCallError
            nil
          end

          def not_built_reason(error)
            "mallard/#{NAME} is not built (#{error.message}); build it with `rake compile` in a checkout, " \
              "or reinstall the gem with a C compiler and Ruby's headers"
          end
        end

        setup
      end
    end
  end
end
