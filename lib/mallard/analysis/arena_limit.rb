# frozen_string_literal: true

module Mallard
  module Analysis
    # How many malloc arenas glibc lets a process create: with no MALLOC_ARENA_MAX, 8 per CPU the process sees
    # (64-bit). Threads create arenas when they contend for one, so a process with many threads approaches the
    # limit, and a production host with more CPUs than the lab's allows more: 512 in a container on a 64-core host.
    module ArenaLimit
      PER_CPU = 8

      module_function

      def for(cpus) = PER_CPU * cpus

      # How a comparison's glibc rows were sized, to set against what production may allow; nil when not known.
      # @param production_cpus [Integer, nil] --production-cpus, when the rows were sized for it
      # @param subject_cpus [Integer, nil] the CPUs the subject saw here
      # @return [Summary::ArenaSizing, nil]
      def comparison_sizing(production_cpus:, subject_cpus:)
        cpus = production_cpus || subject_cpus
        return unless cpus

        Summary::ArenaSizing.new(production_cpus: production_cpus, subject_cpus: subject_cpus, arenas: self.for(cpus))
      end

      # doctor's advice for a glibc process with threads and no limit.
      def doctor_advice(cpus)
        "glibc may create up to #{self.for(cpus)} arenas here (8 per CPU the process sees, #{cpus} CPUs) and 8 per " \
          "CPU on any host it is deployed to (a container sees its host's CPUs unless limited), each holding on to " \
          "freed memory; measure the remedies with `mallard compare` (--production-cpus N sizes glibc as on the " \
          "production host), or try MALLOC_ARENA_MAX=2 or jemalloc (`mallard doctor` lists the libraries found here)"
      end
    end
  end
end
