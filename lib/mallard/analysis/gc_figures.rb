# frozen_string_literal: true

module Mallard
  module Analysis
    # GC activity from the agent's GC.stat timeline, summed over the subject's processes:
    # how many runs and how long during the measured span, and how the live set moved.
    module GcFigures
      COUNTERS = %w[count minor_gc_count major_gc_count time_ms].freeze
      LEVELS = %w[heap_live_slots old_objects heap_allocated_pages heap_available_slots].freeze

      module_function

      # @param agent_records [Array<Run::AgentRecord>]
      # @param script [Boolean] a script is measured from its start, a server from its first record
      # @return [Summary::Gc, nil]
      def call(agent_records, script:)
        by_pid = agent_records.select(&:gc).group_by(&:pid).values
        return if by_pid.empty?

        starts = by_pid.map { |records| records.first.gc }
        lasts = by_pid.map { |records| records.last.gc }
        counters = COUNTERS.to_h { |key| [key.to_sym, delta(script ? [{}] * starts.size : starts, lasts, key)] }
        levels = LEVELS.to_h { |key| [key.to_sym, Summary::Span.new(start: sum(starts, key), end: sum(lasts, key))] }
        Summary::Gc.new(**counters, **levels, share_of_wall: share(by_pid, counters[:time_ms], script))
      end

      def delta(firsts, lasts, key)
        return if lasts.any? { |gc| gc[key].nil? }

        lasts.zip(firsts).sum { |last, first| last[key] - first.fetch(key, 0) }
      end

      def sum(stats, key)
        values = stats.map { |gc| gc[key] }
        values.include?(nil) ? nil : values.sum
      end

      # GC time as a fraction of the processes' wall time over the same span.
      def share(by_pid, time_ms, script)
        return unless time_ms

        wall_ms = by_pid.sum { |records| (records.last.t - (script ? 0 : records.first.t)) * 1000 }
        wall_ms.positive? ? (time_ms / wall_ms).round(4) : nil
      end
    end
  end
end
