# frozen_string_literal: true

module Mallard
  module Analysis
    # --memory-limit as mallard watches it: the tree's summed PSS against the limit, the first tick above it, and the
    # headroom the run's peak left.
    #
    # Why PSS: a container's OOM killer acts on its cgroup's charge, and the cgroup charges every page once, to the
    # cgroup that first touched it. Summed RSS counts a page a preforking server's master and workers share once per
    # process, so it would cross a limit the cgroup never reaches; summed PSS counts each page the tree shares within
    # itself once, as the charge does. Neither counts the page cache the tree's reads and writes fill, which the
    # cgroup also charges (memory.stat's file), so the figure watched is the charge's anonymous and mapped part: a
    # container may fail a little earlier than the tree's PSS alone says.
    module MemoryLimit
      HELD = :pss_kb

      module_function

      # The one rule, for the sampling loop and the summary alike.
      def over?(held_kb, limit_kb) = held_kb.to_i > limit_kb

      # @param run [Run::SoakRun]
      # @return [Summary::MemoryLimit, nil] nil without --memory-limit
      def call(run)
        limit = MemorySize.kb((run.meta.options || {})["memory_limit"])
        return unless limit

        peak = run.totals.filter_map(&HELD).max
        crossed = run.totals.find { |sample| over?(sample.public_send(HELD), limit) }
        Summary::MemoryLimit.new(limit_kb: limit, held: HELD.to_s, peak_kb: peak, headroom_kb: peak && (limit - peak),
                                 enforced: false, **crossing(run, crossed, limit))
      end

      def crossing(run, sample, limit)
        return {} unless sample

        held = sample.public_send(HELD)
        started = run.phases.load_started_t
        { crossed_t: sample.t, crossed_load_s: started && (sample.t - started).round(3), crossed_kb: held,
          over_kb: held - limit, crossed_rss_kb: sample.rss_kb }
      end
    end
  end
end
