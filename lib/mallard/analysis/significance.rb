# frozen_string_literal: true

module Mallard
  module Analysis
    # When a change between two configurations or two runs counts as one: its whole 95% interval lies beyond
    # ±NOISE_PCT, not merely away from zero (the rule of criterion.rs's noise threshold).
    #
    # Why a band and not zero: an interval that only excludes zero calls identical configurations different
    # 5% of the time by construction, and more where its spread misses run-to-run variation. Two soaks of the
    # same app settle up to ~1.5% apart here, and in ten A/A pairs of 4-second soaks one came out
    # "−1.2% (−2.1 … −0.3)". A change smaller than 1% of memory or throughput decides nothing; calling it a
    # difference would break the promise that the same configuration twice shows none. The price, simulated
    # in bench/aa_simulation.rb (3 repeats, 3% noise): A/A called different 1.5% of the time instead of
    # 3.7%, and a real 5% difference found 19% of the time instead of 28%; 20% differences are still found.
    #
    # Memory has a floor as well: two processes of one app settle hundreds of KB apart (glibc's arenas reach
    # different high-water marks), so a memory change under MEMORY_FLOOR_KB decides nothing either — the same floor
    # LeakVerdict allows growth. Where the figures cannot see run-to-run variation (one soak against another,
    # judged on each run's own batch means) the band is the larger of that and a stated allowance for how far
    # two runs of one app settle apart, RUN_TO_RUN_PCT: ten A/A pairs of 4-second soaks of a 27 MB app settled up
    # to 2.5% (700 KB) apart with intervals of ±1.2%, and two back-to-back 10 s soaks of one 20-thread job worker
    # under glibc 5.6% apart, "−8.6 … −2.5" (its arenas reached different high-water marks). bench/diff_aa.rb
    # measures it on such apps: a fragmenting five-thread web app's pairs settled up to 36.6% apart, four of twenty
    # beyond 10%. What two runs of one app hold differently is what the allocator keeps of the memory the app freed
    # (the memory ledger's held-free part): the app's own memory is the same. So where the runs' ledgers say how
    # much that is, the band is at least what that could account for (memory_noise_pct).
    module Significance
      NOISE_PCT = 1.0
      MEMORY_FLOOR_KB = 1024.0
      RUN_TO_RUN_PCT = 10.0

      module_function

      # @param interval [Array(Float, Float), nil] a change's 95% interval, in %
      # @param noise_pct [Float] the half-width of the band a change must clear
      def significant?(interval, noise_pct = NOISE_PCT)
        !interval.nil? && (interval[0] > noise_pct || interval[1] < -noise_pct)
      end

      # Told apart from zero, but not from the noise band: real, perhaps, and too small to act on.
      def within_noise?(interval, noise_pct = NOISE_PCT)
        !interval.nil? && !significant?(interval, noise_pct) && (interval[0].positive? || interval[1].negative?)
      end

      # The band for memory when run-to-run variation is unmeasured (one run each): the allowance for it, or what
      # the allocators' held-free memory (at least the floor) could account for, where that is larger.
      #
      # Two runs of one app own the same memory and differ by what their allocators hold free (h, of a level L).
      # B can then sit above A by at most h_B / L_A, and by at most h_B / (L_B - h_B) (its own memory is A's, and
      # A held at least nothing); B can sit below A by at most h_A / L_A. A rise is bounded by the lesser of the
      # two: a leaking run whose allocator held 29 MiB of its 114 does not make a rise from 27 MiB doubtful.
      # @param before [Array(Numeric, Numeric)] run A's [level_kb, held_kb or nil] (Summary::Soak#headroom_kb)
      # @param after [Array(Numeric, Numeric)] run B's
      def memory_noise_pct(before, after)
        level_a, level_b = [before, after].map(&:first)
        return RUN_TO_RUN_PCT unless [level_a, level_b].all? { |level| level.is_a?(Numeric) && level.positive? }

        held_a, held_b = [before, after].map { |run| [MEMORY_FLOOR_KB, run[1].to_f].max }
        rise = [held_b / level_a, held_b / [level_b - held_b, MEMORY_FLOOR_KB].max].min
        [RUN_TO_RUN_PCT, 100.0 * rise, 100.0 * held_a / level_a].max
      end
    end
  end
end
