# frozen_string_literal: true

module Mallard
  module Report
    # The sentences a soak's (and a gc run's) views share, written once: the terminal and the HTML page place and
    # style them, never reword them. Plain text, no colour and no markup; nil when the summary has nothing to say.
    class SoakSentences
      include Formatting

      IDLE = {
        "growing" => "With no jobs (--idle), memory grew over time: that growth is the backend's own, not your jobs'.",
        "plateaued" => "With no jobs (--idle), memory levelled off: the backend does not grow on its own, so growth " \
                       "under load is your jobs'.",
        "inconclusive" => "With no jobs (--idle), memory is not decided over this run: idle longer to see whether " \
                          "the backend grows on its own."
      }.freeze

      # @param summary [Summary::Soak]
      def initialize(summary)
        @summary = summary
        @verdict = summary.verdict
        @live_set = summary.live_set
        @gc_words = GcSentences.new(summary.gc, live_set: @live_set&.verdict)
        @container = ContainerSentences.new(summary.container, summary.memory_limit)
        @sharing = SharingSentences.new(summary.sharing_decay, unit: summary.jobs ? "jobs" : "requests")
        @roles = RoleSentences.new(summary.roles)
        @job_classes = JobClassSentences.new(summary.job_classes)
      end

      # Every sentence this summary gives, for a check that each view shows them all.
      def all
        [saturation, conclusion, memory_slope, memory_hint, memory_basis, live_set_slope, live_set_hint, live_set_basis,
         ledger, ledger_pss, gc_runs, gc_pauses, *gc.causes.map(&:last), gc_correlation, *gc_settings, ramp,
         instrumented, *container, *sharing, *@roles.all, job_classes.named, job_classes.basis].compact
      end

      # A soak keeps mallard's agent in the app, since its purpose is the explanation, and says so: its absolute req/s
      # and CPU carry the agent's cost, which compare measures and keeps out of its figures. nil for a run without it
      # (no ledger: the agent reads it).
      def instrumented
        return unless @summary.ledger

        "mallard's agent ran inside the app for this explanation (ledger, GC, live set); its req/s and CPU carry the " \
          "agent's cost, which `mallard compare` measures and keeps out of its figures."
      end

      # How the run ended, in its own words, and for a load that failed on timeouts that the app was saturated, and
      # the load it would serve (Summary::Saturation); a run --memory-limit ended says where and by how much. nil for
      # a run that completed as it should.
      def reason
        said = (@container.crossed if limit_ended?) || @summary.reason
        [said, saturation].compact.join("; ") if said
      end

      # Memory as the container counts it (ContainerSentences): the cgroup's charge, whose cgroup it is, and
      # --memory-limit's headroom (its crossing is the reason a run it ended gives, not said twice).
      def container = [@container.charge, @container.owner, (@container.limit unless limit_ended?)].compact

      # Copy-on-write decay (SharingSentences): a line per worker and what the figures are; empty without workers.
      def sharing = @sharing.all

      # A job backend's memory per role (RoleSentences): the terminal's lines; empty without.
      def roles = @roles.lines

      # The same presenter, for the HTML page's role table: each role's figures, verdict and ledger.
      def per_role = @roles

      # A job worker's figures per job class (JobClassSentences): its lines for the terminal, its table's rows for the
      # HTML page, the classes memory grows with and what the figures are for both.
      attr_reader :job_classes

      # The job backend's own count of the jobs it processed, as it keeps it (Summary::Jobs#redis_processed).
      def backend_count(jobs)
        case @summary.target&.kind
        when "solid_queue" then "Solid Queue's own count #{count(jobs.redis_processed)} (its jobs table)"
        when "good_job" then "GoodJob's own count #{count(jobs.redis_processed)} (its good_jobs table)"
        when "resque" then "Resque's own count #{count(jobs.redis_processed)} (stat:processed)"
        else "Sidekiq's own count #{count(jobs.redis_processed)} (written every few seconds)"
        end
      end

      # A saturated app: what timed out, what it served, and what to run instead.
      def saturation = SoakSentences.saturation(@summary.saturation)

      # A saturated app's words, for a soak and for a comparison's row that failed so; nil without one.
      # @param found [Summary::Saturation, nil]
      def self.saturation(found)
        return unless found

        instead = [("--concurrency #{found.suggest_concurrency}" if found.suggest_concurrency),
                   "--rate #{format('%g', found.suggest_rate)}"].compact.map { |option| "`#{option}`" }
        format("%<timeouts>d of them timed out (no answer within %<timeout>g s): the app was saturated, answering " \
               "%<rps>.1f req/s here%<at>s; try %<instead>s, or `--concurrency auto` to find the load it serves",
               timeouts: found.timeouts, timeout: found.timeout_s, rps: found.served_rps, instead: instead.join(" or "),
               at: found.concurrency ? " to #{found.concurrency} connections" : "")
      end

      # An idle soak's memory over time, said as the backend's own, before what memory and the app's own memory say
      # together (Analysis::VerdictConclusion's finding, worded).
      def conclusion
        said = [idle, VerdictSentences.new(@verdict, headroom_kb: @summary.headroom_kb).conclusion].compact
        said.join(" ") unless said.empty?
      end

      # With no jobs (soak --idle) memory's slope is over time: growth there is the backend's own, and a backend that
      # levels off is not leaking, whatever its jobs later do. nil for any other run.
      def idle
        return unless @verdict&.requests_source == Analysis::RequestAxis::IDLE

        IDLE.fetch(@verdict.memory, IDLE["inconclusive"])
      end

      # What the memory ledger says of what the app holds and what the allocator does (LedgerSentences).
      def ledger = LedgerSentences.new(@summary.ledger, headroom_kb: @summary.headroom_kb).sentence

      # How `--concurrency auto` chose the load: each step of its ramp, and the choice with its rule.
      def ramp
        ramp = @summary.ramp
        return unless ramp

        steps = ramp.steps.map do |step|
          format("%d → %.1f req/s (p99 %.1f ms%s)", step.concurrency, step.rps.to_f, step.p99_ms.to_f,
                 step.errors.to_i.positive? ? ", #{step.errors} errors" : "")
        end
        "--concurrency auto, #{ramp.step_s} s a step: #{steps.join(', ')}; #{ramp_choice(ramp)}"
      end

      # How fast memory grows with the work, and how sure: "slope +1.2 KiB per 1,000 requests (95% CI …)".
      def memory_slope
        slope = @verdict&.slope_kb_per_1k
        return unless slope

        low, high = @verdict.ci
        format("slope %+.1f KiB per 1,000 %s (95%% CI %+.1f … %+.1f, tolerance %s)", slope, @verdict.unit, low, high,
               mib(@verdict.tolerance_kb))
      end

      # What memory's verdict was judged on: which memory, how many samples and units of work, and how.
      def memory_basis
        return unless @verdict&.memory

        metric = Analysis::MemoryMetric.pss?(@verdict.metric) ? "summed PSS" : "RSS"
        "Judged on #{metric} after warm-up: #{@verdict.samples} samples, " \
          "#{count(@verdict.requests_observed)} #{@verdict.unit} (#{@verdict.methodology})."
      end

      # What would decide an inconclusive memory verdict.
      def memory_hint
        return unless @verdict&.memory == "inconclusive"

        needed = @verdict.requests_needed
        return "too few samples to decide" unless needed

        "run longer: about #{count(needed)} #{@verdict.unit} after warm-up would decide it"
      end

      # The live set's slope, in slots per unit of its axis.
      def live_set_slope
        return unless @live_set
        return "too few readings to decide (#{@live_set.samples.to_i})" unless @live_set.slope

        low, high = @live_set.ci
        format("slope %s %s (95%% CI %s … %s, tolerance %s slots)", signed(@live_set.slope), @live_set.unit,
               signed(low), signed(high), slots(@live_set.tolerance))
      end

      # What would decide an undecided live set.
      def live_set_hint
        return unless @live_set&.needed

        "about #{slots(@live_set.needed)} #{live_set_axis} would decide it"
      end

      # What the live set was judged on, any caveat, and what the full GCs run for it cost.
      def live_set_basis
        @live_set && [@live_set.measure, live_set_note, forced_gcs].compact.join(": ")
      end

      # What several processes take together, where RSS counts each page they share (a forked worker's
      # copy-on-write heap, shared libraries) once in each: their PSS, and the file-backed part's.
      def ledger_pss
        ledger = @summary.ledger
        count = Array(ledger&.processes).size
        return unless ledger&.pss_kb && count > 1

        file = ledger.parts.find { |part| part.name == Analysis::LedgerParts::FILE }
        read_at = ledger.processes.filter_map(&:pss_t).min
        format("the %d processes took %s together at %s s (PSS: a shared page split among its sharers); " \
               "file-backed %s of it", count, mib(ledger.pss_kb), read_at&.round(1) || "?", mib(file&.pss_kb))
      end

      # The GC sections' sentences (GcSentences): runs, pauses, causes, major-GC time against the live set, settings.
      def gc = @gc_words
      def gc_runs = gc.runs
      def gc_pauses = gc.pauses
      def gc_correlation = gc.correlation
      def gc_settings = gc.settings

      private

      def limit_ended? = @summary.cause == "memory_limit"

      def ramp_choice(ramp)
        clean = format("no errors, p99 under %.0f ms", ramp.latency_limit_ms.to_f)
        return "no step was served cleanly (#{clean}): loaded with 1 connection" unless ramp.chosen

        format("loaded with %d: the fewest connections within %.0f%% of the best req/s of a clean step (%s)",
               ramp.chosen, 100 * Analysis::ConcurrencyChoice::BEST_SHARE, clean)
      end

      # Judged after every GC for want of major GCs: how many ran, what that reading counts, and growth they did not
      # confirm.
      def live_set_note
        return @live_set.note if @live_set.note
        return unless @live_set.majors

        note = "only #{plural(@live_set.majors, 'major GC')} in the span judged, too few to judge on; after a minor " \
               "GC the live slots count old objects not yet collected too"
        return note unless @live_set.unconfirmed

        "#{note}; they grew, and the major GCs did not confirm it (it may be garbage awaiting a major GC): a longer " \
          "run, with more major GCs, decides it"
      end

      def forced_gcs
        count = @live_set.forced_gcs
        return unless count

        format("%d full GC%s run by a method call (mallard's agent when no major GC had run for a while, or the " \
               "app's GC.start), a median %.1f ms each, %.0f ms of GC a minute of load", count, count == 1 ? "" : "s",
               @live_set.forced_gc_ms, @live_set.forced_gc_ms_per_min.to_f)
      end

      # A script's live set is judged over seconds, an app's over its work.
      def live_set_axis = @summary.script ? "s" : @verdict&.unit || "requests"

      def signed(value) = grouped(format("%+.0f", value))

      def slots(value) = grouped(value.round.to_s)
    end
  end
end
