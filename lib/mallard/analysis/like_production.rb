# frozen_string_literal: true

module Mallard
  module Analysis
    # compare --like: the lab set as production runs (its processes' conditions as the exporter serves them,
    # FleetConditions). What the lab can take it takes, unless the command line set it: Puma's pool threads, the
    # workers per tree (not beside --shape, whose rows set their own), the CPUs when production's processes may use
    # fewer than the lab has, and, where production crowds its hosts more than the lab, production's trees on one host
    # as the lab's app and its --neighbours (copies of an app directory, each loaded alike, on the same CPUs). What it
    # cannot take (a Ruby, YJIT, a malloc, more CPUs than the lab has) is said as the conditions the lab still differs
    # in. Its load takes production's request mix (what of it a load can send, RequestMix.take) unless the command
    # line gave its paths. Production's rate is not taken: a lab at production's rate on a host of its own predicted
    # arena2's saving at -5.5% where the fleet it followed, its Pumas sharing their CPUs, measured -38 to -41%
    # (bench/README.md): memory follows how many threads run at once, which a host's crowding sets as much as the
    # rate. A rate given with --rate is said where it is far from production's. Pure.
    module LikeProduction
      Result = Struct.new(:applied, :differing, :mix, :mix_left, keyword_init: true)
      PATHS = %w[--path --paths].freeze

      module_function

      # @param production [Summary::Conditions]
      # @param lab [Summary::Conditions] the comparison as the command line set it
      # @param given [Array<String>] the options the command line gave (--threads, --workers, --cpus, --shape, --path)
      # @param copies [Boolean] whether the lab's target can run beside copies of itself (an app directory)
      # @return [Result] applied: {"threads" => 16, "workers" => 2, "cpus" => 4, "neighbours" => 7}; differing:
      #   [Summary::ConditionGap]; mix: the request mix the load takes ([Summary::RequestShare], empty: its own
      #   paths), mix_left: what it cannot
      def call(production, lab:, given:, copies: true)
        applied = applied(production, lab, given, copies)
        taken = (given & PATHS).empty? ? RequestMix.take(production.mix) : RequestMix::Taken.new(mix: [], left: [])
        after = lab.with(**applied.except("neighbours").transform_keys(&:to_sym),
                         **(applied["neighbours"] ? { trees_per_host: applied["neighbours"] + 1 } : {}),
                         **(taken.mix.empty? ? {} : { mix: taken.mix }))
        Result.new(applied: applied, differing: ConditionGaps.call(after, production), mix: taken.mix,
                   mix_left: taken.left)
      end

      def applied(production, lab, given, copies)
        { "threads" => (production.threads unless given.include?("--threads")),
          "workers" => (production.workers unless (given & %w[--workers --shape]).any?),
          "cpus" => (production.cpus if fewer_cpus?(production, lab, given)),
          "neighbours" => (neighbours(production, lab) if copies && !given.include?("--neighbours")) }.compact
      end

      def fewer_cpus?(production, lab, given)
        production.cpus && lab.cpus && production.cpus < lab.cpus && !given.include?("--cpus")
      end

      # Copies beside the lab's app, as many as production's hosts run beside each tree: where production crowds its
      # hosts more than the lab does.
      def neighbours(production, lab)
        theirs = production.trees_per_host
        theirs - 1 if theirs && lab.trees_per_host && theirs > lab.trees_per_host
      end

      private_class_method :applied, :fewer_cpus?, :neighbours
    end
  end
end
