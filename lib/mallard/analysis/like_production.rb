# frozen_string_literal: true

module Mallard
  module Analysis
    # compare --like: the lab set as production runs (its processes' conditions as the exporter serves them,
    # FleetConditions). What the lab can take it takes, unless the command line set it: Puma's pool threads, the
    # workers per tree (not beside --shape, whose rows set their own), and the CPUs when production's processes may
    # use fewer than the lab has. What it cannot take (a Ruby, YJIT, a malloc, more CPUs than the lab has) is said as
    # the conditions the lab still differs in. Pure.
    module LikeProduction
      Result = Struct.new(:applied, :differing, keyword_init: true)

      module_function

      # @param production [Summary::Conditions]
      # @param lab [Summary::Conditions] the comparison as the command line set it
      # @param given [Array<String>] the options the command line gave (--threads, --workers, --cpus, --shape)
      # @return [Result] applied: {"threads" => 16, "workers" => 2, "cpus" => 4}; differing: [Summary::ConditionGap]
      def call(production, lab:, given:)
        applied = { "threads" => (production.threads unless given.include?("--threads")),
                    "workers" => (production.workers unless (given & %w[--workers --shape]).any?),
                    "cpus" => (production.cpus if fewer_cpus?(production, lab, given)) }.compact
        after = lab.with(**applied.transform_keys(&:to_sym))
        Result.new(applied: applied, differing: ConditionGaps.call(after, production))
      end

      def fewer_cpus?(production, lab, given)
        production.cpus && lab.cpus && production.cpus < lab.cpus && !given.include?("--cpus")
      end

      private_class_method :fewer_cpus?
    end
  end
end
