# frozen_string_literal: true

module Mallard
  module Report
    # A soak's memory as a container counts it, worded once for SoakSentences: the subject's memory cgroup
    # (Summary::Container) beside the tree's PSS, and --memory-limit as watched (Summary::MemoryLimit). nil when the
    # summary has neither.
    class ContainerSentences
      include Formatting

      HELD = { "pss_kb" => "summed PSS", "rss_kb" => "summed RSS" }.freeze

      # @param container [Summary::Container, nil]
      # @param limit [Summary::MemoryLimit, nil]
      def initialize(container, limit)
        @container = container
        @limit = limit
      end

      # The cgroup's charge and whose it is: where other processes share it, its figures are theirs too.
      def charge
        return unless @container&.samples.to_i.positive?

        c = @container
        format("cgroup v%<version>d memory %<path>s: %<steady>s steady, %<peak>s at its peak (anon %<anon>s, file " \
               "%<file>s; the tree's PSS then %<pss>s), the kernel's high-water mark %<mark>s (since the cgroup " \
               "was made); %<limit>s; %<events>s",
               version: c.version, path: Text.printable(c.path.to_s), steady: mib(c.steady_kb), peak: mib(c.peak_kb),
               anon: mib(c.peak_anon_kb), file: mib(c.peak_file_kb), pss: mib(c.peak_tree_pss_kb),
               mark: mib(c.kernel_peak_kb), limit: c.limit_kb ? "its limit #{mib(c.limit_kb)}" : "no limit set on it",
               events: events(c))
      end

      # Whose cgroup it is, said plainly: its figures are the container's view, the app's alone only where the tree
      # is all it holds.
      def owner
        return unless @container&.samples.to_i.positive?

        c = @container
        return "the cgroup holds the subject's #{processes(c.tree_processes.to_i)} and nothing else" unless c.shared?

        format("the cgroup is not the app's own: it holds %d processes, %d of them the subject's, so its figures " \
               "count the others too (mallard itself and whatever else runs there): the container's view, not the " \
               "app's alone", c.processes, c.tree_processes.to_i)
      end

      # The limit and the headroom the run's peak left, or where it was crossed.
      def limit
        return unless @limit
        return crossed if @limit.crossed?

        format("--memory-limit %s, watched against the tree's %s (not enforced): its peak %s left %s of headroom",
               mib(@limit.limit_kb), held, mib(@limit.peak_kb), mib(@limit.headroom_kb))
      end

      # A run the limit ended: when, by how much, and that it was watched.
      def crossed
        return unless @limit&.crossed?

        into = @limit.crossed_load_s ? format("%.1f s into the load", @limit.crossed_load_s) : "before the load"
        format("the subject's tree crossed --memory-limit %s at %.1f s (%s): its %s was %s, %s over (summed RSS " \
               "%s); a container's OOM killer would have acted there. The limit was watched, not enforced (mallard " \
               "has no cgroup of its own here): the run was stopped and the subject's processes ended",
               mib(@limit.limit_kb), @limit.crossed_t, into, held, mib(@limit.crossed_kb), mib(@limit.over_kb),
               mib(@limit.crossed_rss_kb))
      end

      private

      def processes(count) = count == 1 ? "1 process" : "#{count} processes"

      def held = HELD.fetch(@limit.held.to_s, @limit.held.to_s)

      def events(container)
        kills = container.oom_kills
        hits = container.failcnt
        [kills ? "#{plural(kills, 'OOM kill')} in it during the run" : "OOM kills not readable",
         ("it hit its limit #{plural(hits, 'time')}" if hits.to_i.positive?)].compact.join(", ")
      end
    end
  end
end
