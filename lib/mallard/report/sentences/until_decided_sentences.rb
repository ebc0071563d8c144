# frozen_string_literal: true

module Mallard
  module Report
    # How `soak --until-decided` is worded, as it looks (the progress line) and once it has ended (the summary's
    # views): one home for both, so they say the same.
    module UntilDecidedSentences
      extend Formatting

      module_function

      # @param parts [Array<Analysis::Undecided::Part>]
      def look(elapsed:, budget:, parts:)
        at = format("%.0f s of load (budget %.0f s)", elapsed, budget)
        return "#{at}: decided; ending the load" if parts.empty?

        "#{at}: still undecided: #{parts.map { |part| undecided(part) }.join(', ')}"
      end

      # @param run [Run::UntilDecided, nil]
      # @return [String, nil]
      def ending(run)
        return unless run

        ended = if run.decided_s
                  format("--until-decided: decided after %.0f s of load (budget %.0f s)", run.decided_s, run.budget_s)
                else
                  format("--until-decided: the budget (%.0f s of load) ran out with %s still undecided", run.budget_s,
                         Array(run.undecided).join(", "))
                end
        "#{ended}; #{looks(run)}"
      end

      def looks(run)
        cost = run.look_cpu_s ? format(", %.2f s of mallard's CPU", run.look_cpu_s) : ""
        "#{run.looks} look#{'s' unless run.looks == 1} at the run so far#{cost}"
      end

      def undecided(part)
        return part.name unless part.needed

        "#{part.name} (about #{count(part.needed)} #{part.unit} after warm-up would decide it)"
      end

      private_class_method :looks, :undecided
    end
  end
end
