# frozen_string_literal: true

require_relative "gc_line"
require_relative "../extension_loader"

module Mallard
  module Agent
    # The agent's per-GC timeline from GC hooks: mallard/gc_events_ext records every GC into a fixed C ring (see
    # ext/mallard_gc/gc_events.c), and once per interval this drains it into one "gc" line of agent.jsonl (see
    # GcLine). The events are drained into one Array kept for the life of the process, so a drain makes nothing.
    class GcTimeline
      # What the run's boot line calls this source (RubyState's gc_timeline), and MALLARD_GC_EVENTS asks for.
      SOURCE = "hooks"
      # Events moved out of the ring per drain; a busier interval takes several drains into the same line.
      CHUNK = 256
      EXTENSION = "gc_events_ext"

      class << self
        # Loads the extension and starts its hook. Idempotent.
        # @return [String, nil] why there is no per-GC timeline; nil when it runs
        def start
          load_extension
          GcEvents.start
          nil
        rescue LoadError, StandardError => e
          e.message
        end

        private

        # Only one built for this Ruby (ExtensionLoader), or the reason there is none.
        def load_extension
          _, reason = ExtensionLoader.load(EXTENSION, :GcEvents)
          raise LoadError, reason if reason
        end
      end

      # @param origin [Float] the CLOCK_MONOTONIC value the run's t counts from
      def initialize(origin:)
        @line = GcLine.new(origin: origin)
        @events = Array.new(CHUNK * GcLine::FIELDS)
      end

      # @return [String, nil] the line for the GCs since the previous call, valid until the next; nil when
      #   there were none (and none dropped)
      def build(time:, pid:, requests:)
        dropped = GcEvents.take_dropped
        return if dropped.zero? && GcEvents.pending.zero?

        @line.open(time: time, pid: pid, requests: requests, dropped: dropped)
        while (drained = GcEvents.drain(@events)).positive?
          drained.times { |event| @line.event(@events, event * GcLine::FIELDS) }
        end
        @line.close
      end

      # In a forked child the ring holds the parent's GCs.
      def after_fork
        GcEvents.reset
      end
    end
  end
end
