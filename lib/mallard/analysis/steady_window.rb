# frozen_string_literal: true

require_relative "warmup"
require_relative "memory_metric"

module Mallard
  module Analysis
    # The one rule for a soak's steady state: the ticks taken while load ran, less the warm-up. The summary's
    # steady figures and verdict, and `diff`'s intervals, all come from these samples.
    module SteadyWindow
      Window = Struct.new(:samples, :warmup_samples, :metric, keyword_init: true) do
        def values(key = metric) = samples.map { |sample| sample[key] }.grep(Numeric)

        # Seconds from the start of load to the first steady sample; nil when nothing was steady.
        def warmup_end_s(load_started_t)
          samples.first && (samples.first.t - load_started_t).round(2)
        end
      end

      module_function

      # @param run [Run::SoakRun]
      # @param warmup_samples [Integer, nil] the warm-up a summary already found; nil to detect it
      def call(run, warmup_samples: nil)
        window = run.load_totals
        metric = MemoryMetric.for(window.map(&:processes))
        warmup = warmup_samples || Warmup.detect(window.map { |sample| sample[metric] })
        Window.new(samples: window.drop(warmup), warmup_samples: warmup, metric: metric)
      end
    end
  end
end
