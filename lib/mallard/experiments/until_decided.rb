# frozen_string_literal: true

module Mallard
  module Experiments
    # `soak --until-decided`: from --duration on, every LOOK_EVERY seconds of load or more, the run so far is read
    # through the one soak reader and summarised as it would be at its end; the load ends as soon as nothing is
    # undecided (Analysis::Undecided), or when the budget is spent. Each look is reported (what is still undecided),
    # and the last is kept (#record) for the run's phases, so the summary says how the run ended. A look is
    # mallard's own work, on the load's side of the machine: its CPU time is kept too.
    class UntilDecided
      LOOK_EVERY = 15.0
      # A look reads the whole run so far, so its cost grows with the run (0.36 s of CPU a look by 180 s of a
      # fragmenting app's load, bench/README.md): looks come at least a quarter of the load so far apart, which keeps
      # their share of a core flat (under 1% there) at the price of ending up to a quarter later than it could.
      LOOK_SHARE = 0.25

      # How the run stands after the last look (before any, nothing is decided).
      # @return [Run::UntilDecided]
      attr_reader :record

      # @param budget [Float] seconds of load at most
      # @param minimum [Float] seconds of load before the first look
      def initialize(run_dir:, budget:, minimum:, reporter:)
        @run_dir = run_dir
        @reporter = reporter
        @budget = budget
        @next = minimum
        @looks = 0
        @look_cpu_s = 0.0
        keep([Analysis::Undecided::Part.new(name: Analysis::Undecided::VERDICT)], nil)
      end

      # @param elapsed [Float] seconds since the load started
      # @param phases [Run::Phases] the run's as they stand (meta.json may be older), to read the run so far with
      # @return [Boolean] whether the run has decided (looked at most every LOOK_EVERY seconds)
      def decided?(elapsed, phases)
        return false if elapsed < @next

        @next = elapsed + [LOOK_EVERY, LOOK_SHARE * elapsed].max
        @looks += 1
        started = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
        still = look(phases)
        @look_cpu_s += Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - started
        keep(still, elapsed)
        @reporter.undecided(elapsed: elapsed, budget: @budget, parts: still)
        still.empty?
      end

      private

      def keep(still, elapsed)
        @record = Run::UntilDecided.new(budget_s: @budget, looks: @looks, undecided: still.map(&:name),
                                        decided_s: (elapsed.round(1) if still.empty?), look_cpu_s: @look_cpu_s.round(3))
      end

      def look(phases)
        read = Run::SoakReader.read(@run_dir)
        Analysis::Undecided.call(Analysis::SoakSummary.call(read.with(meta: read.meta.with(phases: phases))))
      end
    end
  end
end
