# frozen_string_literal: true

require_relative "warmup"

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
        window = load_window(samples, phases)
        # A script has no verdict, hence no warm-up figure: find it the way the summary would have.
        warmup = summary.dig("verdict", "warmup_samples") || Warmup.detect(window.map { |s| s[key] })
        window.drop(warmup).map { |s| s[key] }.grep(Numeric)
      end

      # The same bounds as the summary's window: a run killed before load finished has no end time.
      def load_window(samples, phases)
        from = phases["load_started_t"] || 0
        to = phases["load_finished_t"] || Float::INFINITY
        samples.select { |s| s["kind"] == "total" && s["t"].is_a?(Numeric) && s["t"].between?(from, to) }
               .sort_by { |s| s["t"] }
      end

      private_class_method :load_window
    end
  end
end
