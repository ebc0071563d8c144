# frozen_string_literal: true

module Mallard
  module Run
    # The one reader of a fleet run's directory: series.json holds Prometheus's range-query results as they came
    # ({ "a" => { selector, query, result }, "b" => ... }), values as strings; here they become numbers, and
    # points that are not (NaN, a stale marker) are dropped.
    module FleetReader
      module_function

      # @param directory [Directory]
      # @return [FleetRun]
      def read(directory)
        raw = directory.read_json("series.json") || {}
        FleetRun.new(path: directory.path, meta: Meta.from_h(directory.read_json("meta.json")) || Meta.new,
                     a: side("A", raw["a"]), b: side("B", raw["b"]), parts: parts(raw["parts"] || {}),
                     conditions: conditions(raw["conditions"] || {}),
                     summary: Summary::Fleet.from_h(directory.read_json("summary.json")))
      end

      def conditions(raw)
        raw.transform_values { |one| Array(one["result"]).map { |found| series(found) } }
      end

      def parts(raw)
        raw.transform_values { |sides| [side("A", sides["a"]), side("B", sides["b"])] }
      end

      def side(name, raw)
        raw ||= {}
        FleetSide.new(name: name, selector: raw["selector"], query: raw["query"],
                      series: Array(raw["result"]).map { |one| series(one) })
      end

      # One series of a Prometheus range query's result, its values as numbers.
      # @return [FleetSeries]
      def series(one)
        points = Array(one["values"]).filter_map do |time, value|
          number = Float(value, exception: false)
          [Float(time), number] if number&.finite?
        end
        FleetSeries.new(labels: (one["metric"] || {}).except("__name__"), points: points)
      end

      private_class_method :conditions, :parts, :side
    end
  end
end
