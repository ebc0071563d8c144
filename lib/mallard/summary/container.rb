# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # The subject's memory cgroup over the run (Analysis::ContainerMemory): whose it is (version and path), how many
    # processes it held and how many of them were the subject's tree (where processes is more, every figure counts
    # the others too: the container's view, not the app's alone); its charge in KiB — steady (the median over the
    # load), at its peak sampled (with that reading's anon and file parts and the tree's summed PSS at the same
    # tick), and the kernel's own high-water mark (since the cgroup was made, so from before the run too); its own
    # limit (nil: none), and the times it hit that limit and the OOM kills in it during the run.
    Container = Value.define(:version, :path, :processes, :tree_processes, :samples, :steady_kb, :peak_kb,
                             :peak_anon_kb, :peak_file_kb, :peak_tree_pss_kb, :kernel_peak_kb, :limit_kb, :failcnt,
                             :oom_kills) do
      # Whether other processes than the subject's share its cgroup, so its figures are theirs too.
      def shared? = processes.to_i > tree_processes.to_i
    end

    # --memory-limit, watched (Analysis::MemoryLimit): the limit and the figure held against it (held: "pss_kb", the
    # tree's summed PSS), its peak over the run and the headroom left (negative once crossed); where it was crossed,
    # when (crossed_t on the run's clock, crossed_load_s into the load) and by how much (crossed_kb the figure then,
    # over_kb above the limit, crossed_rss_kb the tree's summed RSS then). enforced: false — mallard watched the tree;
    # no cgroup of its own held the limit.
    MemoryLimit = Value.define(:limit_kb, :held, :peak_kb, :headroom_kb, :crossed_t, :crossed_load_s, :crossed_kb,
                               :over_kb, :crossed_rss_kb, :enforced) do
      def crossed? = !crossed_t.nil?
    end
  end
end
