# frozen_string_literal: true

require "rbconfig"

module Mallard
  module Agent
    # The agent's per-GC timeline: mallard/gc_events_ext records every GC into a fixed C ring (see
    # ext/mallard_gc/gc_events.c), and once per interval this drains it into one "gc" line of agent.jsonl:
    #
    #   {"kind":"gc","t":..,"pid":..,"requests":..,"dropped":..,"events":[[t, pause_ms, ...], ...]}
    #
    # with each event's fields in the order of Run::GC_EVENT_FIELDS and its t on the run's clock. As in
    # RecordLine, the line is built in one String and the events drained into one Array, both kept for the
    # life of the process: only each number's text is made, and it is garbage as soon as it is appended.
    class GcTimeline
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

        # From this gem's lib directory, where `rake compile` and `gem install` put it; else from the load path.
        def load_extension
          dir = File.expand_path("..", __dir__)
          if File.file?(File.join(dir, "#{EXTENSION}.#{RbConfig::CONFIG['DLEXT']}"))
            require File.join(dir, EXTENSION)
          else
            require "mallard/#{EXTENSION}"
          end
        rescue LoadError => e
          raise LoadError, recorded_reason(dir) || e.message
        end

        # ext/mallard_gc/extconf.rb's reason for building nothing, if it had one.
        def recorded_reason(dir)
          File.read(File.join(dir, "#{EXTENSION}.unavailable")).strip
        rescue SystemCallError
          nil
        end
      end

      # @param origin [Float] the CLOCK_MONOTONIC value the run's t counts from
      def initialize(origin:)
        @origin = origin
        @line = +""
        @events = Array.new(CHUNK * GcEvents::EVENT_FIELDS)
      end

      # @return [String, nil] the line for the GCs since the previous call, valid until the next; nil when
      #   there were none (and none dropped)
      def build(time:, pid:, requests:)
        dropped = GcEvents.take_dropped
        return if dropped.zero? && GcEvents.pending.zero?

        @line.clear
        @line << '{"kind":"gc","t":' << time.round(6).to_s << ',"pid":' << pid.to_s
        @line << ',"requests":' << (requests.nil? ? "null" : requests.to_s)
        @line << ',"dropped":' << dropped.to_s << ',"events":['
        count = 0
        while (drained = GcEvents.drain(@events)).positive?
          drained.times { |event| append(event, count + event) }
          count += drained
        end
        @line << "]}\n"
      end

      # In a forked child the ring holds the parent's GCs.
      def after_fork
        GcEvents.reset
      end

      private

      def append(event, index)
        at = event * GcEvents::EVENT_FIELDS
        @line << (index.zero? ? "[" : ",[") << (@events[at] - @origin).round(6).to_s
        1.upto(GcEvents::EVENT_FIELDS - 1) { |field| value(@events[at + field]) }
        @line << "]"
      end

      # Symbol#name is the symbol's own frozen String: nothing is made.
      def value(figure)
        case figure
        when nil then @line << ",null"
        when Symbol then @line << ',"' << figure.name << '"'
        when Float then @line << "," << figure.round(4).to_s
        else @line << "," << figure.to_s
        end
      end
    end
  end
end
