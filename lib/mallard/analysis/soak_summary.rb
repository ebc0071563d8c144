# frozen_string_literal: true

module Mallard
  module Analysis
    # One soak's figures, verdicts and series, from its run model (Run::SoakRun) — the same whether the run is
    # live, stored, finished, interrupted or killed before it could write summary.json.
    module SoakSummary
      DEFAULT_MAX_ERROR_PCT = 1.0

      module_function

      # The summary to show for a run: the stored one when the run wrote it, else computed from the records.
      # A summary stored before series were kept gets them from the records.
      # @param run [Run::SoakRun]
      # @return [Summary::Soak]
      def for(run)
        summary = run.summary || call(run)
        return summary if summary.series

        summary.with(series: series(run, summary.verdict, summary.live_set))
      end

      # @param run [Run::SoakRun]
      # @return [Summary::Soak]
      def call(run)
        steady = SteadyWindow.call(run)
        work = work(run)
        outcome = judged_outcome(run, **work)
        live_set, ledger = judged(run, steady)
        verdict = verdict(run, steady, live_set, ledger, rate(run, work)) if outcome.status != "failed"
        Summary::Soak.new(
          schema_version: Run::Directory::SCHEMA_VERSION, kind: kind(run), **ended(run, outcome, work[:load]),
          run_dir: Text.scrub(run.path), skipped_lines: run.skipped, target: run.target,
          allocator: run.phases.diagnosis, verdict: verdict, memory: memory(run, steady), **work,
          app: app_figures(run, work[:load]), gc: gc(run), live_set: live_set,
          script: script_figures(run), validity: Validity.call(run), cpu_layout: run.meta.cpu_layout,
          series: series(run, verdict, live_set), **run_facts(run, steady), **ledger.to_h.slice(:ledger, :headroom_kb)
        )
      end

      # What the run recorded of itself: the Ruby it ran on, how `--until-decided` ended, the ramp
      # `--concurrency auto` chose its load by, its memory cgroup and --memory-limit, its workers' sharing, and a job
      # backend's memory per role and figures per job class.
      def run_facts(run, steady)
        { ruby: run.meta.subject_ruby, until_decided: run.phases.until_decided, ramp: ramp(run.ramp),
          container: ContainerMemory.call(run), memory_limit: MemoryLimit.call(run),
          sharing_decay: SharingDecay.call(run), roles: RoleMemory.call(run, steady),
          job_classes: JobClasses.call(run, from_t: steady.samples.first&.t) }
      end

      def ramp(ramp)
        return unless ramp

        choice = ConcurrencyChoice.call(ramp)
        Summary::Ramp.new(**choice.to_h.except(:steps), step_s: ramp.step_s, steps: ramp.steps)
      end

      # The live set and the memory ledger (whose app-held growth the live set confirms), over the span the memory
      # verdict judges.
      def judged(run, steady)
        live_set = LiveSet.call(run, from_t: steady.samples.first&.t)
        [live_set, Ledger.call(run, from_t: steady.samples.first&.t, live_set: live_set&.verdict)]
      end

      # What was served, and what each unit of it cost the subject in CPU time.
      def work(run)
        load = LoadFigures.call(run.load)
        jobs = JobFigures.call(run)
        cost = CpuCost.call(run, jobs ? jobs.processed : load&.requests)
        return { load: load, jobs: jobs.with(cpu_s: cost[:cpu_s], cpu_ms_per_job: cost[:ms_per_unit]) } if jobs

        neighbours = (run.meta.options || {})["neighbours"]
        { load: load&.with(cpu_s: cost[:cpu_s], cpu_ms_per_request: cost[:ms_per_unit],
                           neighbours: (neighbours if neighbours.to_i.positive?)), jobs: nil }
      end

      def app_figures(run, load)
        AppFigures.call(run.agent, run.load, cpu_s: load&.cpu_s, cpus: run.meta.cpu_layout&.subject_cpus)
      end

      def series(run, verdict, live_set)
        SoakSeries.call(run, warmup: verdict&.warmup_end_s, live_set_measure: live_set&.measure)
      end

      # A run whose requests (or jobs) mostly failed measured the failures, not the app: it is no measurement at
      # all. An idle soak that ran no job is what it set out to be.
      def judged_outcome(run, load:, jobs:)
        outcome = run.phases.outcome || Run::Outcome.running
        return outcome if outcome.status == "interrupted" || (run.idle? && jobs&.processed.to_i.zero?)

        options = run.meta.options || {}
        limit = options.fetch("max_error_pct", DEFAULT_MAX_ERROR_PCT)
        failed = failed_share(load, jobs)
        return outcome unless failed && failed[0] > limit

        reason = format("%.1f%% of %s failed (%d of %d; the limit is %g%%, --max-errors): a failed measurement, not " \
                        "a result", *failed, limit)
        Run::Outcome.failed("errors", reason)
      end

      # How the run ended, and for a load that failed on its errors, whether they were timeouts: the app saturated.
      def ended(run, outcome, load)
        failed = outcome.status == "failed" && outcome.cause == "errors"
        outcome.to_h.merge(saturation: (saturated(run, load) if failed))
      end

      # What load a saturated app would serve depends on the load it was given: connections (the ramp's choice with
      # --concurrency auto), or an open loop's rate.
      def saturated(run, load)
        options = run.meta.options || {}
        unless options["rate"]
          concurrency = run.ramp ? ConcurrencyChoice.call(run.ramp).chosen : options["concurrency"]
        end
        Saturation.call(load, concurrency: concurrency, timeout_s: Probe::Wrk::REQUEST_TIMEOUT)
      end

      # [percentage, what, failed, attempted]; nil for a run without load.
      def failed_share(load, jobs)
        return [jobs.failed_pct, "jobs", jobs.failed, jobs.processed] if jobs
        return [load.error_pct, "requests", load.errors, load.attempts] if load
      end

      # Two parts: memory (none for a script, which has no steady state) and the app's own memory (the live set and
      # the ledger's app-held parts), and what they say together. nil when neither was judged.
      def verdict(run, steady, live_set, ledger, rate)
        memory = memory_verdict(run, steady)
        return unless memory || live_set

        decision = VerdictConclusion.call(memory: memory, live_set: live_set, ledger: ledger, rate: rate)
        Summary::Verdict.new(**memory.to_h, live_set: live_set&.verdict, app_held: ledger&.app_held,
                                            allocator_held: ledger&.allocator_held, **decision.to_h)
      end

      # Units of work a second over the load (requests, or jobs; an idle soak's are seconds), for how far off a
      # decision is.
      def rate(run, work)
        return 1.0 if run.idle?

        work[:jobs] ? work[:jobs].per_s : work[:load]&.rps
      end

      def memory_verdict(run, steady)
        return if run.script?

        Summary::Verdict.new(**MemoryVerdict.call(run, steady.samples, steady.values),
                             metric: steady.metric.to_s, warmup_samples: steady.warmup_samples,
                             warmup_end_s: steady.warmup_end_s(run.phases.load_started_t.to_f))
      end

      # The kind of run the soak is reported as (RunKind#soak_kind): a gc run's is one, a heap run's a soak.
      def kind(run) = RunKind.for_command(run.meta.command).soak_kind.name

      def gc(run)
        GcTimeline.call(run, settings: GcSettings.call(run.phases.gc_settings))
      end

      def memory(run, steady)
        totals = run.totals
        Summary::Memory.new(
          steady_rss_kb: Statistics.median(steady.values(:rss_kb))&.round,
          steady_pss_kb: Statistics.median(steady.values(:pss_kb))&.round, peak_rss_kb: totals.map(&:rss_kb).max,
          final_rss_kb: totals.last&.rss_kb, samples: totals.size, processes: totals.map(&:processes).compact.max,
          metric: steady.metric.to_s, per_process: per_process(run.processes), tree: ProcessParts.call(run, steady)
        )
      end

      def per_process(samples)
        samples.group_by(&:pid).map do |pid, records|
          Summary::ProcessMemory.new(pid: pid, role: records.first.role, peak_rss_kb: records.map(&:rss_kb).max,
                                     final_rss_kb: records.last.rss_kb)
        end
      end

      def script_figures(run)
        return unless run.script?

        phases = run.phases
        Summary::Script.new(wall_s: (phases.load_finished_t.to_f - phases.up_t.to_f).round(2),
                            exit_status: phases.exit_status, peak_rss_kb: run.totals.map(&:rss_kb).max,
                            final_rss_kb: run.totals.last&.rss_kb)
      end

      private_class_method :app_figures, :run_facts, :ramp, :judged, :work, :judged_outcome, :ended, :saturated,
                           :failed_share, :series, :verdict, :rate, :memory_verdict, :kind, :gc, :memory, :per_process,
                           :script_figures
    end
  end
end
