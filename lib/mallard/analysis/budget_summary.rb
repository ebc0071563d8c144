# frozen_string_literal: true

module Mallard
  module Analysis
    # Builds a budget's summary from its run (Run::BudgetRun), live or stored: each entry's figures from its soaks
    # (BudgetFigures), each gated against the baseline the budget file kept (BudgetGate), and the verdict. With
    # --update the values measured become the baseline: each figure's change then says how they moved from the old
    # one, and nothing is gated. How the budget ended is decided here from its soaks: one that did not complete leaves
    # the budget unfinished, and a signal its meta.json recorded stands over one its soaks left unfinished.
    module BudgetSummary
      METHOD = "each entry soaked --repeat times in turn (builds cannot be interleaved: the baseline's were measured " \
               "on another build, earlier); each figure's change is the ratio of geometric means with Welch's 95% " \
               "interval on logs, and it is over budget only when the whole interval lies above its allowance"

      module_function

      # @param run [Run::BudgetRun]
      # @return [Summary::Budget]
      def call(run)
        update = run.options["update"] ? true : false
        soaks = run.soaks.map { |runs| runs.map { |soak| [soak, soak.summary || SoakSummary.call(soak)] } }
        entries = entries(run.budget, soaks, update)
        outcome = ended(run, soaks.flatten(1).map(&:last))
        Summary::Budget.new(schema_version: Run::Directory::SCHEMA_VERSION, kind: "budget", target: run.target,
                            run_dir: Text.scrub(run.path), update: update, methodology: METHOD, entries: entries,
                            verdict: outcome.complete? ? verdict(entries, update) : nil, **asked(run.options),
                            status: outcome.status, cause: outcome.cause, reason: outcome.reason)
      end

      # Each entry of the budget as read (none when its copy is missing), with its soaks.
      def entries(budget, soaks, update)
        return [] unless budget

        budget.entries.each_with_index.map { |entry, index| entry(entry, soaks[index] || [], update: update) }
      end

      # What the budget was asked (meta.json's options): its file, the app and the repeats.
      def asked(options) = { file: options["file"], app: options["app"], repeat: options["repeat"] }

      # @param entry [Run::BudgetFile::Entry]
      # @param soaks [Array(Run::SoakRun, Summary::Soak)] the entry's soaks with their summaries
      def entry(entry, soaks, update:)
        values = soaks.select { |_, summary| summary.complete? }.map { |soak, summary| BudgetFigures.of(soak, summary) }
        figures = entry.figures.map do |name, guard|
          figure(name, guard, values.filter_map { |measured| measured[name] }, update: update)
        end
        Summary::BudgetEntry.new(name: entry.name, paths: entry.paths, figures: figures,
                                 runs: soaks.map { |soak, _| Text.scrub(soak.path) })
      end

      def figure(name, guard, measured, update:)
        verdict, change = BudgetGate.call(measured, guard["baseline"], guard["max_increase_pct"])
        verdict = "updated" if update && measured.any?
        Summary::BudgetFigure.new(name: name, max_increase_pct: guard["max_increase_pct"], verdict: verdict,
                                  baseline: guard["baseline"], measured: measured, change: change)
      end

      def verdict(entries, update)
        return "updated" if update

        entries.flat_map(&:figures).any?(&:over?) ? "over" : "within"
      end

      # @param summaries [Array<Summary::Soak>] every soak's, in the order they ran
      # @return [Run::Outcome]
      def ended(run, summaries)
        recorded = run.meta.phases&.outcome
        return recorded if recorded&.signalled?

        unfinished = summaries.find { |summary| !summary.complete? }
        return unfinished_outcome(unfinished) if unfinished

        recorded || Run::Outcome.running # stopped, or killed, before it said it ended
      end

      def unfinished_outcome(soak)
        Run::Outcome.new(status: soak.status == "running" ? "interrupted" : soak.status, cause: soak.cause || "error",
                         reason: "a soak did not complete: #{soak.reason || soak.status}")
      end
    end
  end
end
