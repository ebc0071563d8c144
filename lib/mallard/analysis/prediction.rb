# frozen_string_literal: true

module Mallard
  module Analysis
    # What a comparison predicted for a configuration: its memory change against the comparison's baseline, as the
    # comparison's own table has it (Summary::Compare's config vs_baseline), taken once when a fleet run starts so the
    # fleet run keeps it. Pure.
    module Prediction
      module_function

      # @param compare [Summary::Compare]
      # @param config [String, nil] the row named; nil for the comparison's recommendation
      # @param run [String] where the comparison is, as given
      # @return [Summary::Prediction]
      # @raise [UsageError] no such row, no recommendation to take, or the baseline itself
      def call(compare, config:, run:)
        name = config || recommended(compare, run)
        row = compare.configs.find { |candidate| candidate.name == name }
        unless row
          raise UsageError, "#{run} has no configuration #{name} (it has #{compare.configs.map(&:name).join(', ')})"
        end

        baseline = compare.baseline || compare.configs.first.name
        raise UsageError, "#{name} is #{run}'s baseline: there is no change to expect of it" if name == baseline

        versus = row.vs_baseline
        Summary::Prediction.new(run: run, config: name, baseline: baseline, metric: compare.metric,
                                pct: versus&.rss_pct, ci: versus&.rss_pct_ci, finding: versus&.rss_finding,
                                chosen_by: config ? "given" : "recommendation",
                                ledger_kb: part_changes(row, compare.configs.find { |one| one.name == baseline }))
      end

      # The ledger's parts, the row's less the baseline's, where both kept one.
      def part_changes(row, baseline)
        mine = row.ledger_kb
        theirs = baseline&.ledger_kb
        return unless mine && theirs

        mine.filter_map { |part, kb| [part, kb - theirs[part]] if kb && theirs[part] }.to_h
      end

      def recommended(compare, run)
        name = compare.recommendation&.name
        return name if name

        raise UsageError, "#{run} recommends no configuration (it kept the baseline): name one, --expect RUN:CONFIG"
      end

      private_class_method :recommended, :part_changes
    end
  end
end
