# frozen_string_literal: true

require "json"

module Mallard
  module Experiments
    # A comparison's summary: the rows as measured, the statistics over them, and the
    # recommendation. Rows pass through JSON first, so the analysis sees exactly what a stored run
    # holds and `mallard report` can recompute it.
    module CompareSummary
      module_function

      def build(rows:, status:, reason:, run_dir:, target:)
        plain = JSON.parse(JSON.generate(rows.map { |row| plain_row(row) }))
        comparison = Analysis::Comparison.call(plain, baseline: plain.first&.fetch("name") || "glibc")
        { schema_version: Run::Directory::SCHEMA_VERSION, kind: "compare", status: status, reason: reason,
          run_dir: run_dir, target: { kind: target.kind, description: target.describe },
          baseline: comparison[:baseline], metric: comparison[:metric], configs: with_reasons(comparison, plain),
          recommendation: Analysis::Recommendation.call(comparison), rows: plain }
      end

      # The table says why a row has no figures: the package to install, or the subject's last words.
      def with_reasons(comparison, plain)
        comparison[:configs].map do |config|
          row = plain.find { |r| r["name"] == config[:name] }
          config.merge(unavailable_reason: row["unavailable_reason"], output_tail: row["output_tail"])
        end
      end

      def plain_row(row)
        allocator = row.allocator
        { name: row.label, allocator: allocator.name, available: allocator.available?,
          unavailable_reason: allocator.unavailable_reason, verified: row.failure.nil? && row.runs.any?,
          failed: row.failure && row.failure[:reason], output_tail: row.failure && row.failure[:output_tail],
          runs: row.runs }
      end
    end
  end
end
