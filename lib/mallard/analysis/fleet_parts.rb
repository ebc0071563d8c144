# frozen_string_literal: true

module Mallard
  module Analysis
    # Each memory ledger part of a fleet run (fleet --expect fetches them): B's level against A's, each the median of
    # its processes' time-weighted medians (ProcessMedians), in KiB. Pure.
    module FleetParts
      module_function

      # @param parts [Hash{String=>Array(Run::FleetSide, Run::FleetSide)}] Run::FleetRun#parts
      # @param step [Float] the query's step, seconds
      # @return [Hash{String=>Float}] part name => B's median less A's, KiB; a part either side lacks is left out
      def call(parts, step:)
        parts.filter_map do |part, sides|
          a, b = sides.map { |side| level(side, step) }
          [part, (b - a) / 1024.0] if a && b
        end.to_h
      end

      def level(side, step)
        medians = ProcessMedians.call(side.series, step: step, set: side.name).reject(&:excluded).map(&:median)
        Statistics.median(medians)
      end

      private_class_method :level
    end
  end
end
