# frozen_string_literal: true

require_relative "statistics"

module Mallard
  module Analysis
    # A tree of several processes in parts, over the steady window: each process's own part (the median of its PSS,
    # which adds up to the tree's), the master's (the process mallard started) against the workers', and the tree's
    # memory in pages shared between its processes (summed PSS less summed USS: each shared page once, as the tree
    # holds it; summed RSS − USS would count a page once per process sharing it) and private to each (the sum of
    # USS), each the median over the steady ticks. A refork keeps more of the workers' pages shared; a tree without
    # preload shares little but the Ruby binary and its libraries.
    module ProcessParts
      module_function

      # @param run [Run::SoakRun]
      # @param steady [SteadyWindow::Window]
      # @return [Summary::TreeMemory, nil] nil for a single process, which shares with nothing
      def call(run, steady)
        ticks = steady.samples.map(&:t)
        return unless steady.samples.filter_map(&:processes).max.to_i > 1

        at = ticks.to_h { |t| [t, true] }
        samples = run.processes.select { |sample| at[sample.t] && sample.pss_kb && sample.uss_kb }
        return if samples.empty?

        parts = parts(samples)
        Summary::TreeMemory.new(**sums(samples.group_by(&:t).values), **roles(parts), parts: parts)
      end

      # The tree's shared and private memory at each tick, and their medians.
      def sums(ticks)
        shared = ticks.map { |tick| tick.sum { |sample| sample.pss_kb - sample.uss_kb } }
        own = ticks.map { |tick| tick.sum(&:uss_kb) }
        { steady_shared_kb: median(shared), steady_private_kb: median(own) }
      end

      def parts(samples)
        samples.group_by(&:pid).map do |pid, own|
          Summary::ProcessPart.new(pid: pid, role: own.first.role, steady_pss_kb: median(own.filter_map(&:pss_kb)),
                                   samples: own.size)
        end
      end

      # The master's part, and a worker's: the median of the workers' own.
      def roles(parts)
        main, workers = parts.partition { |part| part.role == "main" }
        { main_pss_kb: main.first&.steady_pss_kb, worker_pss_kb: median(workers.filter_map(&:steady_pss_kb)) }
      end

      def median(values) = Statistics.median(values)&.round

      private_class_method :sums, :parts, :roles, :median
    end
  end
end
