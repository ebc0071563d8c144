# frozen_string_literal: true

module Mallard
  module Analysis
    # The subject's memory cgroup over the run, from its readings (Run::CgroupSample): what a container's OOM killer
    # counts, beside the tree's PSS. Counters the kernel keeps since the cgroup was made (failcnt, OOM kills) are
    # taken as what the run added to them.
    module ContainerMemory
      module_function

      # @param run [Run::SoakRun]
      # @return [Summary::Container, nil] nil when the subject sat in no readable memory cgroup
      def call(run)
        samples = run.cgroups
        return if samples.empty?

        first = samples.first
        last = samples.last
        Summary::Container.new(
          version: last.version, path: last.path, processes: samples.filter_map(&:processes).max,
          tree_processes: samples.filter_map(&:tree_processes).max, samples: samples.size,
          steady_kb: steady(run, samples), **peak(run, samples), kernel_peak_kb: last.peak_kb,
          limit_kb: last.limit_kb, failcnt: added(first.failcnt, last.failcnt),
          oom_kills: added(first.oom_kills, last.oom_kills)
        )
      end

      def steady(run, samples)
        window = run.phases.load_window
        loaded = samples.select { |sample| window.cover?(sample.t) }
        usage = (loaded.empty? ? samples : loaded).filter_map(&:usage_kb)
        Statistics.median(usage)&.round
      end

      # The sampled peak, its parts, and the tree's PSS at the same tick (the sampler reads both at once).
      def peak(run, samples)
        top = samples.select(&:usage_kb).max_by(&:usage_kb)
        return {} unless top

        tree = run.totals.find { |total| total.t == top.t }
        { peak_kb: top.usage_kb, peak_anon_kb: top.anon_kb, peak_file_kb: top.file_kb, peak_tree_pss_kb: tree&.pss_kb }
      end

      def added(first, last) = first && last && (last - first)
    end
  end
end
