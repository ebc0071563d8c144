# frozen_string_literal: true

module Mallard
  module Experiments
    # `soak --until-decided`: from --duration on, every LOOK_EVERY seconds of load or more, the run so far is read
    # through the one soak reader and summarised as it would be at its end; the load ends as soon as nothing is
    # undecided (Analysis::Undecided), or when the budget is spent. Each look is reported (what is still undecided),
    # and the last is kept in the run's phases (Run::UntilDecided), so the summary says how the run ended. A look is
    # mallard's own work, on the load's side of the machine: its CPU time is kept too.
    class UntilDecided
      LOOK_EVERY = 15.0
      # A look reads the whole run so far, so its cost grows with the run (0.36 s of CPU a look by 180 s of a
      # fragmenting app's load, bench/README.md): looks come at least a quarter of the load so far apart, which keeps
      # their share of a core flat (under 1% there) at the price of ending up to a quarter later than it could.
      LOOK_SHARE = 0.25

      # @param budget [Float] seconds of load at most
      # @param minimum [Float] seconds of load before the first look
      def initialize(run_dir:, phases:, budget:, minimum:, reporter:)
        @run_dir = run_dir
        @phases = phases
        @reporter = reporter
        @budget = budget
        @next = minimum
        @looks = 0
        @look_cpu_s = 0.0
        record([Analysis::Undecided::Part.new(name: Analysis::Undecided::VERDICT)], nil)
      end

      # @param elapsed [Float] seconds since the load started
      # @return [Boolean] whether the run has decided (looked at most every LOOK_EVERY seconds)
      def decided?(elapsed)
        return false if elapsed < @next

        @next = elapsed + [LOOK_EVERY, LOOK_SHARE * elapsed].max
        @looks += 1
        started = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
        still = look
        @look_cpu_s += Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - started
        record(still, elapsed)
        @reporter.undecided(elapsed: elapsed, budget: @budget, parts: still)
        still.empty?
      end

      private

      def record(still, elapsed)
        @phases.until_decided = Run::UntilDecided.new(budget_s: @budget, looks: @looks, undecided: still.map(&:name),
                                                      decided_s: (elapsed.round(1) if still.empty?),
                                                      look_cpu_s: @look_cpu_s.round(3))
      end

      def look
        run = Run::SoakReader.read(@run_dir).tap { |read| read.meta.phases = @phases }
        Analysis::Undecided.call(Analysis::SoakSummary.call(run))
      end
    end
  end
end
