# frozen_string_literal: true

require_relative "../../extension_loader"

module Mallard
  module Run
    module HeapDump
      # mallard/heap_scan_ext (ext/mallard_heap_scan), the C pass that counts what Tally counts, ~10 times
      # faster and allocating nothing per object. Optional: where it is not built, available? is false and
      # unavailable_reason says why, and HeapDump.scan uses Tally.
      module Extension
        NAME = "heap_scan_ext"
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

          def load_extension
            extension, @unavailable_reason = ExtensionLoader.load(NAME, :HeapScanExt)
            extension
          end
        end

        setup
      end
    end
  end
end
