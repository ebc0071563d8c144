# frozen_string_literal: true

require_relative "../agent/malloc_stats"

module Mallard
  module Exporter
    # What only a process itself can read about its memory: GC.stat's counts, its allocator's statistics, and how
    # often mallard/trim has trimmed. Each process of the tree writes its own to a file every interval (see
    # Exporter), and the one that serves reads them all at a scrape. The format is "key value" lines, so the app
    # loads no json for it. GC.stat's keys differ between Rubies: a key the running one lacks is left out,
    # never written as a made-up zero.
    module Readings
      GC_KEYS = %i[count minor_gc_count major_gc_count time heap_live_slots old_objects heap_allocated_pages].freeze
      MALLOC_PREFIX = "malloc."

      module_function

      # @return [Hash{String=>Numeric}]
      def take(stat = GC.stat)
        readings = {}
        GC_KEYS.each { |key| readings["gc.#{key}"] = stat[key] if stat[key].is_a?(Numeric) }
        in_use = Agent::MallocStats.in_use
        readings["malloc_in_use"] = in_use if in_use
        Agent::MallocStats.statistics.each { |name, value| readings["#{MALLOC_PREFIX}#{name}"] = value }
        trims = trim_count
        readings["trims"] = trims if trims
        readings
      end

      # mallard/trim's count, when it is loaded and trimming in this process.
      def trim_count
        return unless defined?(Mallard::Trim) && Mallard::Trim.respond_to?(:installed?) && Mallard::Trim.installed?

        Mallard::Trim.trims
      end

      def dump(readings)
        readings.map { |key, value| "#{key} #{value}\n" }.join
      end

      # Lines that do not parse (a file cut short) are skipped, not fatal.
      def parse(text)
        text.each_line.with_object({}) do |line, readings|
          key, value = line.split(" ", 2)
          number = Integer(value.to_s.strip, exception: false) || Float(value.to_s.strip, exception: false)
          readings[key] = number if number
        end
      end
    end
  end
end
