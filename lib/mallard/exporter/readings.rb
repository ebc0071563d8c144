# frozen_string_literal: true

require_relative "../agent/malloc_stats"
require_relative "../agent/ledger"
require_relative "../run/records"
require_relative "../analysis/ledger_parts"
require_relative "request_counts"

module Mallard
  module Exporter
    # What only a process itself can read about its memory: GC.stat's counts, its allocator's statistics, how
    # often mallard/trim has trimmed, the requests it served by method and path (RequestCounts), and its RSS in the
    # memory ledger's parts (Analysis::LedgerParts, from the reading a soak's agent takes, Agent::Ledger, with the
    # mappings only under MALLARD_MAPPINGS_INTERVAL). Each process of the tree writes its own to a file every interval
    # (see Exporter), and the one that serves reads them all at a scrape. The format is "key value" lines, so the app
    # loads no json for it. GC.stat's keys differ between Rubies: a key the running one lacks is left out,
    # never written as a made-up zero.
    module Readings
      GC_KEYS = %i[count minor_gc_count major_gc_count time heap_live_slots old_objects heap_allocated_pages].freeze
      MALLOC_PREFIX = "malloc."
      PART_PREFIX = "part."

      module_function

      # @return [Hash{String=>Numeric}]
      def take(stat = GC.stat)
        readings = {}
        GC_KEYS.each { |key| readings["gc.#{key}"] = stat[key] if stat[key].is_a?(Numeric) }
        malloc = Agent::MallocStats.reading # glibc's walks every free chunk: one reading serves both
        readings["malloc_in_use"] = malloc[0] if malloc[0]
        fields = ledger.fields(malloc_reading: malloc)
        fields["malloc"].each { |name, value| readings["#{MALLOC_PREFIX}#{name}"] = value }
        trims = trim_count
        readings["trims"] = trims if trims
        readings.merge(parts(fields), RequestCounts.readings)
      end

      # The ledger's parts in bytes, as "part.<name, spaces as _>" (a reading's key has no space); a part the
      # allocator cannot report is left out.
      def parts(fields)
        record = Run::LedgerRecord.from_h(fields)
        Analysis::LedgerParts.call(record).filter_map do |name, kb|
          ["#{PART_PREFIX}#{name.tr(' ', '_')}", kb * 1024] if kb
        end.to_h
      end

      # A part's name from its reading's key.
      def part_name(key) = key.delete_prefix(PART_PREFIX).tr("_", " ")

      # One per process: the reading keeps /proc/self/statm open, and a forked child's /proc/self is not its parent's.
      def ledger
        @ledger = nil unless @ledger_pid == Process.pid
        @ledger_pid = Process.pid
        @ledger ||= Agent::Ledger.new(origin: 0.0, mappings_interval: Agent::Ledger.mappings_interval(ENV))
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
