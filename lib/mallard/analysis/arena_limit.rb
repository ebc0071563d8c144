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

      # What a comparison's glibc rows allowed, against what production may.
      # @param production_cpus [Integer, nil] --production-cpus, when the rows were sized for it
      # @param subject_cpus [Integer, nil] the CPUs the subject saw here
      def comparison_note(production_cpus:, subject_cpus:)
        if production_cpus
          return "glibc's rows were sized as on #{production_cpus} CPUs (up to #{self.for(production_cpus)} arenas, " \
                 "MALLOC_ARENA_MAX set to glibc's own limit there)."
        end
        return unless subject_cpus

        "glibc's rows could create up to #{self.for(subject_cpus)} arenas here (8 per CPU, #{subject_cpus} CPUs); " \
          "in production a process may create 8 per CPU its host shows it, so pass --production-cpus N to size " \
          "them as there."
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
