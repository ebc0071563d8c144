# frozen_string_literal: true

require_relative "warmup"
require_relative "load_window"

module Mallard
  module Analysis
    # The steady-state samples of a stored soak: the `total` samples taken while load ran (the load window in
    # meta.json's phases), less the warm-up the soak's own summary found (verdict.warmup_samples). Taking the
    # warm-up from the summary rather than detecting it again keeps a diff on exactly the samples behind the
    # summary's steady figures. Pure: records in, numbers out.
    module SteadySeries
      module_function

      # @param summary [Hash] the soak's summary, string keys
      # @param samples [Array<Hash>] samples.jsonl records
      # @param phases [Hash] meta.json's phases
      # @param key [String] the sample field: "rss_kb" or "pss_kb"
      # @return [Array<Numeric>] in time order
      def call(summary:, samples:, phases:, key:)
        window = LoadWindow.select(samples, phases)
        # A script has no verdict, hence no warm-up figure: find it the way the summary would have.
        warmup = summary.dig("verdict", "warmup_samples") || Warmup.detect(window.map { |s| s[key] })
        window.drop(warmup).map { |s| s[key] }.grep(Numeric)
      end
    end
  end
end
