# frozen_string_literal: true

module Mallard
  module Agent
    # A full GC when no major GC has run for `every` seconds, so that the live set is read exactly — live slots right
    # after a full mark — on a server whose own major GCs are rare: a Rails app soaked for 90 s ran 11 majors, 6 of
    # them before the load and none in the span judged, and its live set could only be judged on old objects, which
    # saw-tooth by ±15k slots. Where the app's own majors come often enough, nothing is forced.
    #
    # It runs with the interval's record (Recorder#flush), on the thread that writes it, and its event is in the
    # per-GC timeline like any GC's, told apart by major_by "force": the analysis counts them and their pauses, so
    # the run says what they cost.
    class FullGc
      # @param env [Hash] Switches::FULL_GC: seconds without a major GC before one is run
      # @return [FullGc, nil] nil unless it gives a positive number
      def self.from_env(env)
        every = Float(env[Switches::FULL_GC], exception: false)
        new(every) if every&.positive?
      end

      def initialize(every)
        @every = every
        after_fork
      end

      # @param now [Float] CLOCK_MONOTONIC
      # @return [Boolean] whether it ran one
      def run_if_due(now)
        majors = GC.stat(:major_gc_count)
        return restart(now, majors) unless majors == @majors && now - @since >= @every

        GC.start(full_mark: true, immediate_sweep: true)
        restart(now, GC.stat(:major_gc_count))
        true
      end

      # A forked child counts its own majors from its own start.
      def after_fork
        restart(Process.clock_gettime(Process::CLOCK_MONOTONIC), GC.stat(:major_gc_count))
      end

      private

      # A major GC seen (the app's, or the one just run): the wait starts again.
      def restart(now, majors)
        @since = now unless majors == @majors
        @majors = majors
        false
      end
    end
  end
end
