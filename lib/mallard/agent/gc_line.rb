# frozen_string_literal: true

module Mallard
  module Agent
    # One "gc" line of agent.jsonl, whichever source recorded the GCs (GcTimeline's C ring or
    # GcProfilerTimeline's GC::Profiler):
    #
    #   {"kind":"gc","t":..,"pid":..,"requests":..,"dropped":..,"events":[[t, pause_ms, ...], ...]}
    #
    # with each event's fields in the order of Run::GC_EVENT_FIELDS and its t on the run's clock. As in
    # RecordLine, the line is built in one String kept for the life of the process, and events are read from
    # the caller's long-lived flat buffer: only each number's text is made, and it is garbage as soon as it is
    # appended.
    class GcLine
      # Fields per event in a buffer: Run::GC_EVENT_FIELDS.size, and the C ring's EVENT_FIELDS.
      FIELDS = 11

      # @param origin [Float] the CLOCK_MONOTONIC value the run's t counts from
      def initialize(origin:)
        @origin = origin
        @line = +""
        @events = 0
      end

      # Starts a new line, forgetting the previous one.
      def open(time:, pid:, requests:, dropped:)
        @line.clear
        @events = 0
        @line << '{"kind":"gc","t":' << time.round(6).to_s << ',"pid":' << pid.to_s
        @line << ',"requests":' << (requests.nil? ? "null" : requests.to_s)
        @line << ',"dropped":' << dropped.to_s << ',"events":['
      end

      # Appends the event at buffer[at, FIELDS]; its first field is its CLOCK_MONOTONIC start.
      def event(buffer, at)
        @line << (@events.zero? ? "[" : ",[") << (buffer[at] - @origin).round(6).to_s
        1.upto(FIELDS - 1) { |field| value(buffer[at + field]) }
        @line << "]"
        @events += 1
      end

      # @return [String] the line, valid until the next open
      def close
        @line << "]}\n"
      end

      private

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
