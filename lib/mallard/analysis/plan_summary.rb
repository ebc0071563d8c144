# frozen_string_literal: true

require_relative "plan"

module Mallard
  module Analysis
    # Builds a plan's summary from its run (Run::PlanRun), live or stored: each soak's figures, the parts measured, the
    # worker count chosen (Plan), and the check of that count against its prediction and the limit. How the plan
    # ended is decided here from its soaks: a measuring soak that did not complete leaves nothing to plan from, none
    # fitting is a failed plan, and a check that crossed the limit a failed one too; a signal the plan's meta.json
    # recorded stands over a plan its soaks left unfinished.
    module PlanSummary
      module_function

      # @param run [Run::PlanRun]
      # @return [Summary::Plan]
      def call(run)
        settings = settings(run.meta)
        measuring, check = runs(run)
        parts = Plan.parts(measuring.select(&:complete?))
        chosen = parts && Plan.choose(parts, settings[:limit_kb])
        choice = choice(settings, parts, chosen, check)
        Summary::Plan.new(schema_version: Run::Directory::SCHEMA_VERSION, kind: "plan", run_dir: Text.scrub(run.path),
                          target: run.target, measured_shape: settings[:shape]&.label, rate: settings[:rate],
                          methodology: Plan::METHOD, plan: choice, parts: parts, runs: [*measuring, check].compact,
                          predictions: parts ? Plan.predictions(parts, settings[:limit_kb], chosen) : [],
                          **ending(ended(run, measuring, parts, choice, check)))
      end

      # @return [Array(Array<Summary::PlanRun>, Summary::PlanRun)] the measuring soaks' figures, and the check's (nil
      #   when it did not run)
      def runs(run)
        shapes = Array(run.meta.configs)
        measuring = run.measuring.each_with_index.map do |soak, index|
          figures(soak, "measure", "measure-#{index + 1}", shapes[0])
        end
        [measuring, run.check && figures(run.check, "check", Run::PlanReader::CHECK, shapes[1])]
      end

      # What the plan was asked: the limit, the offered load in all and the shape measured (meta.json).
      def settings(meta)
        options = meta.options || {}
        shape = Array(meta.configs).first
        { limit_kb: MemorySize.kb(options["memory_limit"]), rate: options["rate"],
          shape: shape && PumaShape.parse(shape) }
      end

      # One soak as the plan reads it: its ending, its memory (Plan.memory) and its served load.
      def figures(soak, role, name, shape)
        summary = soak.summary || SoakSummary.call(soak)
        work = Headline.of(summary)
        Summary::PlanRun.new(role: role, name: name, shape: shape, rate: (soak.meta.options || {})["rate"],
                             status: summary.status, cause: summary.cause, reason: summary.reason,
                             run_dir: summary.run_dir, rps: work.rate, p99_ms: work.latency_ms&.p99,
                             errors: work.errors, problems: summary.validity&.problems || [], **Plan.memory(soak))
      end

      def choice(settings, parts, chosen, check)
        return unless parts

        shape = settings[:shape]
        predicted = Plan.predict(parts, chosen, settings[:limit_kb]) if chosen.positive?
        measured = check&.peak_pss_kb
        Summary::PlanChoice.new(
          workers: chosen, threads: shape.threads, limit_kb: settings[:limit_kb],
          rate: settings[:rate] && (settings[:rate] * chosen / shape.workers).round(3),
          predicted_peak_kb: predicted&.predicted_peak_kb, margin_kb: predicted&.margin_kb, measured_peak_kb: measured,
          error_pct: Plan.error_pct(predicted&.predicted_peak_kb, measured), **limit_check(check, settings[:limit_kb])
        )
      end

      # Whether the check stayed under the limit, as its soak watched it (Analysis::MemoryLimit): crossed_kb is the
      # summed PSS at the first tick above it.
      def limit_check(check, limit_kb)
        return {} unless check&.peak_pss_kb

        crossed = check.cause == "memory_limit"
        { within_limit: !crossed && check.peak_pss_kb <= limit_kb, crossed_kb: (check.peak_pss_kb if crossed) }
      end

      # @return [Run::Outcome]
      def ended(run, measuring, parts, choice, check)
        recorded = run.meta.phases&.outcome
        return recorded if recorded&.signalled?

        unfinished = [*measuring, check].compact.find { |soak| !soak.complete? }
        return unfinished_outcome(unfinished) if unfinished
        return Run::Outcome.failed("no_valid_runs", "no measuring run read a master and its workers") unless parts

        judged(choice, check) || recorded || Run::Outcome.running # stopped, or killed, before the check ran
      end

      # A plan whose soaks all completed: none fits, the check crossed the limit, or it is complete; nil before the
      # check ran.
      def judged(choice, check)
        if choice.workers.zero?
          return Run::Outcome.failed("no_fit", "not even one worker fits under the limit with its margin")
        end
        return crossed(choice) if choice.within_limit == false

        Run::Outcome.complete if check
      end

      def ending(outcome) = { status: outcome.status, cause: outcome.cause, reason: outcome.reason }

      def unfinished_outcome(soak)
        status = soak.status == "running" ? "interrupted" : soak.status
        Run::Outcome.new(status: status, cause: soak.cause || "error",
                         reason: "#{soak.name} (#{soak.shape}) did not complete: #{soak.reason || soak.status}")
      end

      def crossed(choice)
        Run::Outcome.failed("memory_limit", "the chosen count (#{choice.workers} workers) crossed the limit")
      end
    end
  end
end
