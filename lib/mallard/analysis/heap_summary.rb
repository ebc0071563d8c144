# frozen_string_literal: true

module Mallard
  module Analysis
    # A heap run's summary: the soak's, the three-dump method (HeapRetention) on the dumps its agent wrote, how the
    # dumps were taken (their sizes against the app's RSS, how long each took, how long the run waited for them),
    # and mallard's own requests to the app during the dumps and outside them (HeapLatency).
    module HeapSummary
      TRACING = "allocation tracing (ObjectSpace.trace_object_allocations_start) was on in the app for the whole " \
                "run: it records where each object was allocated, at a cost measured in bench/README.md"
      # A heap run's connections unless --concurrency says otherwise: allocation tracing slows an app several
      # times over (a heavy Rails page from ~100 ms to ~700 ms), and a heap run is for retention, not throughput:
      # a few connections keep the traced app answering instead of queueing into the load tool's timeout.
      CONCURRENCY = 2
      # The soak's causes that mean its load failed: with tracing on, the views say what to change.
      LOAD_FAILED = %w[errors load_failed].freeze

      module_function

      # @param run [Run::HeapRun]
      # @return [Summary::Heap]
      def call(run)
        soak = SoakSummary.for(run.soak)
        base = { kind: "heap", schema_version: Run::Directory::SCHEMA_VERSION, soak: soak, target: soak.target,
                 latency: HeapLatency.call(run.schedule), wait: wait(run.schedule), tracing: TRACING }
        dumps = run.complete_dumps
        return without_dumps(base, run, **failed(soak), shortfall: shortfall(dumps, run)) if dumps.size < 3

        Summary::Heap.from_h(**base, **outcome(soak), **retention(dumps))
      rescue FailedMeasurement => e
        without_dumps(base, run, **failed(soak, e.message))
      end

      # A summary without retention: the dumps the run has, and how it ended.
      def without_dumps(base, run, **ending)
        Summary::Heap.from_h(**base, **ending, dumps: run.dumps.sort_by(&:number).map { |dump| dump_info(dump) })
      end

      # A run stopped part-way (a signal, the app exiting) ends as the soak did, and says what became of the dumps
      # (why: the dumps' error, when they had one); otherwise it is a failed measurement: nothing to compare.
      def failed(soak, why = nil)
        return { status: "failed", cause: "no_dumps", reason: why } unless soak.status == "interrupted"

        reasons = [soak.reason, why].compact
        { status: soak.status, cause: soak.cause, reason: (reasons.join("; ") unless reasons.empty?) }
      end

      def wait(schedule)
        schedule.slice("waited_s", "gave_up", "pickup_timeout_s", "dump_timeout_s") unless schedule.empty?
      end

      # The three dumps were written: the run ends as its soak did, whose load may have failed under tracing.
      def outcome(soak)
        { status: soak.status, cause: soak.cause, reason: soak.reason,
          traced_load_failed: LOAD_FAILED.include?(soak.cause) }
      end

      # Fewer than three dumps: the most one process wrote, and why no more (nil: the run ended first).
      def shortfall(dumps, run)
        written = run.dumps.group_by(&:pid).values.map(&:size).max || dumps.size
        Summary::HeapShortfall.new(written: written, why: run.schedule["gave_up"] || run.failures.first)
      end

      def retention(dumps)
        places = dumps.last.places
        figures = HeapRetention.call(Run::HeapDumps.new(dumps.map(&:path)),
                                     generations: [dumps[0].opens || dumps[0].generation, dumps[1].generation],
                                     gems: places["gems"],
                                     app_dir: places["app_dir"], ruby_dirs: places["ruby_dirs"] || [])
        figures[:dumps] = figures[:dumps].zip(dumps).map { |info, dump| info.merge(dump_info(dump)) }
        figures
      end

      def dump_info(dump)
        { path: dump.path, bytes: dump.bytes, taken_at: dump.t, dump_s: dump.seconds, pid: dump.pid,
          rss_kb: dump.rss_kb }
      end
    end
  end
end
