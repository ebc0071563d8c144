# frozen_string_literal: true

module Mallard
  module Analysis
    # How the app answered mallard's own requests (Experiments::HeapProbe) while its dumps were being taken, set
    # against the same requests outside the dumps, under the same load: a dump's own cost is the difference, not
    # the figure alone (a saturated app answers slowly with or without a dump).
    #
    # A request is "during a dump" when it started between a dump's request and its end, for a dump the app took;
    # "outside" when it started while no dump was pending. Requests while a request went unanswered by the app are
    # in neither.
    module HeapLatency
      module_function

      # @param schedule [Hash] heap_dumps.json as Run::HeapReader reads it
      # @return [Hash, nil] Summary::HeapLatency members; nil when no request was timed
      def call(schedule)
        probes = schedule["probes"] || []
        return if probes.empty?

        taken, pending = intervals(schedule)
        during = probes.select { |t, _| inside?(taken, t) }
        outside = probes.reject { |t, _| inside?(taken, t) || inside?(pending, t) }
        { path: schedule["probe_path"], during: (figures(during) if taken.any?), outside: figures(outside) }
      end

      # The dumps the app wrote, from request to end (or to the end of the load), and those it never did.
      def intervals(schedule)
        last = schedule["load_ended_t"] || Float::INFINITY
        requests = schedule["requests"] || []
        taken, pending = requests.partition { |request| request["written"] }
        [taken.map { |request| request["requested_t"]..(request["ended_t"] || last) },
         pending.map { |request| request["requested_t"]..last }]
      end

      def inside?(intervals, time) = intervals.any? { |interval| interval.cover?(time) }

      # @return [Hash] Summary::HeapProbeFigures members; times nil when no request was answered
      def figures(probes)
        times = probes.filter_map(&:last).sort
        { requests: probes.size, answered: times.size, errors: probes.size - times.size,
          p50_ms: (Statistics.median(times) unless times.empty?), max_ms: times.last }
      end
    end
  end
end
