# frozen_string_literal: true

module Mallard
  module Analysis
    # A heap run's summary: the soak's, and the three-dump method (HeapRetention) on the dumps its agent wrote.
    module HeapSummary
      TRACING = "allocation tracing (ObjectSpace.trace_object_allocations_start) was on in the app for the whole " \
                "run: it records where each object was allocated, at a cost measured in bench/README.md"

      module_function

      # @param run [Run::HeapRun]
      # @param latency [Hash, nil] Summary::HeapLatency members, measured while the dumps were written
      # @return [Summary::Heap]
      def call(run, latency: nil)
        soak = SoakSummary.for(run.soak)
        base = { kind: "heap", schema_version: Run::Directory::SCHEMA_VERSION, soak: soak, target: soak.target,
                 latency: latency, tracing: TRACING }
        dumps = run.complete_dumps
        Summary::Heap.from_h(**base, **outcome(soak, dumps, run), **retention(dumps))
      rescue FailedMeasurement => e
        Summary::Heap.from_h(**base, status: "failed", cause: "no_dumps", reason: e.message)
      end

      def outcome(soak, dumps, run)
        if dumps.size < 3
          why = run.failures.first || "the run ended before its third dump"
          raise FailedMeasurement, "#{dumps.size} of the 3 dumps were written (#{why})"
        end

        { status: soak.status, cause: soak.cause, reason: soak.reason }
      end

      def retention(dumps)
        places = dumps.last.places
        figures = HeapRetention.call(Run::HeapDumps.new(dumps.map(&:path)),
                                     generations: dumps.first(2).map(&:generation), gems: places["gems"],
                                     app_dir: places["app_dir"], ruby_dirs: places["ruby_dirs"] || [])
        figures[:dumps] = figures[:dumps].zip(dumps).map do |info, dump|
          info.merge(taken_at: dump.t, dump_s: dump.seconds, pid: dump.pid)
        end
        figures
      end
    end
  end
end
