# frozen_string_literal: true

module Mallard
  module Report
    # A job backend's memory per role (Summary::RolePart), worded once for SoakSentences: per role, its processes and
    # the jobs they ran, its steady PSS, how it went from the first tick to the last, and its peak; its verdict against
    # the tree's jobs; and its ledger's parts. Empty for a run without roles.
    class RoleSentences
      include Formatting

      # @param roles [Array<Summary::RolePart>, nil]
      def initialize(roles)
        @roles = Array(roles)
      end

      # The terminal's lines: each role's figures, then its verdict and its ledger beneath them.
      def lines = [*@roles.flat_map { |role| [figures(role), verdict(role), ledger(role)].compact }, basis].compact

      # What every view says in words (the HTML page's role table holds the figures as cells): each role's verdict
      # and ledger, and what the figures are.
      def all = [*@roles.flat_map { |role| [verdict(role), ledger(role)] }, basis].compact

      # What the figures are, said once beside them (nil without roles).
      def basis
        return if @roles.empty?

        "PSS per role: each process's role by the title its backend gives it, the PSS of its processes summed at " \
          "each tick (the roles add up to the tree's); steady is the median over the steady window. Each role's " \
          "verdict judges its steady PSS against the jobs the whole tree ran, by the run's own rule, so a role that " \
          "runs none (supervisor, dispatcher) grows with the backend, not with its own work; its ledger is the " \
          "parts the agent read in its processes, each at its last reading in the steady window."
      end

      # "worker (2 processes, 1,200 jobs): …"
      def figures(role)
        format("%<role>s (%<held>s): %<steady>s steady, %<first>s at the first tick, %<last>s at the last, " \
               "peak %<peak>s",
               role: role.role, held: held(role),
               steady: role.steady_pss_kb ? mib(role.steady_pss_kb) : "no steady window",
               first: mib(role.first_pss_kb), last: mib(role.last_pss_kb), peak: mib(role.peak_pss_kb))
      end

      # "worker's PSS: growing, +20480.0 KiB per 1,000 jobs the tree ran (95% CI …)"; nil without a verdict (a
      # summary stored before roles were judged).
      def verdict(role)
        judged = role.verdict
        return unless judged
        return thin(role) if judged.finding == "too_thin"

        format("%<role>s's PSS: %<word>s, %<slope>+.1f KiB per 1,000 %<unit>s (95%% CI %<low>+.1f … %<high>+.1f, " \
               "tolerance %<tolerance>s)%<needed>s",
               role: role.role, word: judged.memory, slope: judged.slope_kb_per_1k, unit: per(judged.unit),
               low: judged.ci[0], high: judged.ci[1], tolerance: mib(judged.tolerance_kb), needed: needed(judged))
      end

      # "worker's ledger in PSS, 2 of 2 processes read: ruby live 12.9 MiB, malloc 59.3 MiB, …"; nil without one.
      def ledger(role)
        read = role.ledger
        return unless read
        return "#{role.role}'s ledger: the agent read none of its processes in the steady window" if read.parts.empty?

        key = read.parts.all?(&:pss_kb) ? :pss_kb : :kb
        format("%<role>s's ledger in %<in>s, %<read>d of %<held>s read: %<parts>s",
               role: role.role, in: key == :pss_kb ? "PSS" : "RSS (its PSS was not read near its readings)",
               read: read.processes_read, held: processes(role.processes), parts: parts(read, key))
      end

      private

      # "2 processes, 1,200 jobs"; "1 process, ran no jobs"; no jobs said where the agent recorded none.
      def held(role)
        return processes(role.processes) unless role.jobs

        "#{processes(role.processes)}, #{role.jobs.zero? ? 'ran no jobs' : grouped(plural(role.jobs, 'job'))}"
      end

      def processes(count) = count == 1 ? "1 process" : "#{count} processes"

      # Every role is judged against the whole tree's work: "jobs the tree ran" (an idle soak's: "seconds idle").
      def per(unit) = unit == "jobs" ? "jobs the tree ran" : unit

      # "ruby live 12.9 MiB, malloc 59.3 MiB, …": the parts read, in PSS or RSS (key), those that hold nothing left out.
      def parts(read, key)
        read.parts.filter_map do |part|
          "#{Words::LEDGER_SHORT.fetch(part.name, part.name)} #{mib(part[key])}" if part[key].to_i.positive?
        end.join(", ")
      end

      # Too few samples, or no work done over them (a window in which the tree ran no job): either is too thin.
      def thin(role)
        judged = role.verdict
        format("%<role>s's PSS: too thin to judge, %<samples>d steady samples over %<observed>s %<unit>s (it takes " \
               "%<min>d samples and some %<unit>s)",
               role: role.role, samples: judged.samples.to_i, observed: count(judged.requests_observed.to_i),
               unit: judged.unit, min: Analysis::LeakVerdict::MIN_SAMPLES)
      end

      def needed(judged)
        return "" unless judged.memory == "inconclusive" && judged.requests_needed

        "; about #{count(judged.requests_needed)} #{judged.unit} after warm-up would decide it"
      end
    end
  end
end
