# frozen_string_literal: true

require_relative "statistics"
require_relative "tree_shape"

module Mallard
  module Analysis
    # A job backend's tree split by role: each process's role by the title its backend gave it (TreeShape's rule, as
    # doctor reads a tree), and per role the PSS of its processes summed at each tick, so the roles add up to the
    # tree's PSS. Pure.
    module RoleMemory
      # Points of a role's series kept for the views.
      POINTS = 60
      # The tree from its root down; a role not named here comes after these.
      ORDER = %w[supervisor master dispatcher scheduler worker mold child].freeze

      module_function

      # @param run [Run::SoakRun]
      # @param steady [SteadyWindow::Window]
      # @return [Array<Summary::RolePart>, nil] nil for a run that is no job worker's, or whose titles say no roles
      def call(run, steady)
        return unless run.jobs?

        roles = roles(run.processes, run.meta.subject_pid)
        return if roles.values.uniq.size < 2

        steady_ticks = steady.samples.to_h { |sample| [sample.t, true] }
        by_role(run.processes, roles).sort_by { |role, _| ORDER.index(role) || ORDER.size }
                                     .map { |role, ticks| part(role, ticks, steady_ticks) }
      end

      # The processes that do the work, by their titles (Puma's workers, Solid Queue's): empty when none says so.
      # @return [Array<Integer>]
      def worker_pids(run)
        roles(run.processes, run.meta.subject_pid).select { |_, role| role == "worker" }.keys
      end

      # Each process's role, by the last title it was seen with; Puma's numbered workers are one role.
      def roles(samples, root)
        titles = samples.select(&:title).to_h { |sample| [sample.pid, sample.title] }
        titles.to_h { |pid, title| [pid, TreeShape.role(title, pid == root).sub(/ \d+\z/, "")] }
      end

      # @return [Hash{String => Hash{Float => Array}}] per role, its processes' [pid, PSS] at each tick
      def by_role(samples, roles)
        samples.select { |sample| roles[sample.pid] && sample.pss_kb }
               .group_by { |sample| roles[sample.pid] }
               .transform_values { |own| own.group_by(&:t).transform_values { |at| at.map { |s| [s.pid, s.pss_kb] } } }
      end

      def part(role, ticks, steady_ticks)
        series = ticks.sort.map { |t, held| [t, held.sum(&:last)] }
        steady = series.select { |t, _| steady_ticks[t] }.map(&:last)
        Summary::RolePart.new(role: role, processes: ticks.values.flatten(1).map(&:first).uniq.size,
                              steady_pss_kb: Statistics.median(steady)&.round, first_pss_kb: series.first.last,
                              last_pss_kb: series.last.last, peak_pss_kb: series.map(&:last).max,
                              points: thinned(series))
      end

      # Every n-th point, the last kept.
      def thinned(series)
        step = (series.size / POINTS.to_f).ceil
        kept = series.each_slice(step).map(&:first)
        kept[-1] = series.last unless kept.last == series.last
        kept
      end

      private_class_method :by_role, :part, :thinned
    end
  end
end
