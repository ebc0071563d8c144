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
      # What to change when the load failed under tracing.
      LOAD_HINT = "allocation tracing slows the app several times over: give `mallard heap` fewer connections " \
                  "(--concurrency, default #{CONCURRENCY}) or an open-loop --rate the traced app can answer".freeze
      DUMP_NAMES = "ABC"

      module_function

      # @param run [Run::HeapRun]
      # @return [Summary::Heap]
      def call(run)
        soak = SoakSummary.for(run.soak)
        base = { kind: "heap", schema_version: Run::Directory::SCHEMA_VERSION, soak: soak, target: soak.target,
                 latency: HeapLatency.call(run.schedule), wait: wait(run.schedule), tracing: TRACING }
        dumps = run.complete_dumps
        Summary::Heap.from_h(**base, **outcome(soak, dumps, run), **retention(dumps))
      rescue FailedMeasurement => e
        Summary::Heap.from_h(**base, **without_dumps(soak, e.message),
                                     dumps: run.dumps.sort_by(&:number).map { |dump| dump_info(dump) })
      end

      # A run stopped part-way (a signal, the app exiting) ends as the soak did, saying what became of the dumps;
      # otherwise it is a failed measurement: nothing to compare.
      def without_dumps(soak, why)
        return { status: "failed", cause: "no_dumps", reason: why } unless soak.status == "interrupted"

        { status: soak.status, cause: soak.cause, reason: "#{soak.reason}; #{why}" }
      end

      def wait(schedule)
        schedule.slice("waited_s", "gave_up", "pickup_timeout_s", "dump_timeout_s") unless schedule.empty?
      end

      def outcome(soak, dumps, run)
        raise FailedMeasurement, missing(dumps, run, soak) if dumps.size < 3

        reason = soak.reason
        reason = "#{reason}; #{LOAD_HINT}" if %w[errors load_failed].include?(soak.cause)
        { status: soak.status, cause: soak.cause, reason: reason }
      end

      # "1 of the 3 dumps were written (why the others were not)".
      def missing(dumps, run, _soak)
        written = run.dumps.group_by(&:pid).values.map(&:size).max || dumps.size
        why = run.schedule["gave_up"] || run.failures.first ||
              "the run ended before dump #{DUMP_NAMES[written]} was written"
        "#{written} of the 3 dumps #{written == 1 ? 'was' : 'were'} written (#{why})"
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
