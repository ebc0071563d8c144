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
    module Significance
      NOISE_PCT = 1.0

      module_function

      # @param interval [Array(Float, Float), nil] a change's 95% interval, in %
      def significant?(interval)
        !interval.nil? && (interval[0] > NOISE_PCT || interval[1] < -NOISE_PCT)
      end

      # Told apart from zero, but not from the noise band: real, perhaps, and too small to act on.
      def within_noise?(interval)
        !interval.nil? && !significant?(interval) && (interval[0].positive? || interval[1].negative?)
      end
    end
  end
end
