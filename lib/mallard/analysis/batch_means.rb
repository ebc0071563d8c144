# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # The one batch-means rule, for the leak verdict (LeakVerdict) and for diff of two soaks (RunDiff): a run's
    # samples cut into k contiguous batches, k = n / SAMPLES_PER_BATCH up to MAX_BATCHES, each replaced by its mean.
    # Consecutive samples are autocorrelated, so a statistic over the samples themselves counts one slow wander
    # as many independent readings; batch means several samples long are close to independent, and their few df
    # widen the interval honestly.
    #
    # How few batches will do is the statistic's to say, hence `min`: a regression slope's t has k - 2 df, so
    # LeakVerdict needs 3; Welch's t between two runs needs two means a side, so RunDiff needs 2.
    module BatchMeans
      SAMPLES_PER_BATCH = 3
      MAX_BATCHES = 10

      module_function

      # @param min [Integer] the fewest batches the statistic can use; fewer samples make shorter batches
      def count(samples, min:) = (samples / SAMPLES_PER_BATCH).clamp(min, MAX_BATCHES)

      def of(values, min:) = Statistics.batch_means(values, count(values.size, min: min))
    end
  end
end
