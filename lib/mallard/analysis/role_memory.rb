# frozen_string_literal: true

require_relative "memory_verdict"
require_relative "role_ledger"
require_relative "statistics"
require_relative "tree_shape"

module Mallard
  module Analysis
    # A job backend's tree split by role: each process's role by the title its backend gave it (TreeShape's rule, as
    # doctor reads a tree), and per role the PSS of its processes summed at each tick, so the roles add up to the
    # tree's PSS; per role too the jobs its processes ran, its PSS judged against the tree's jobs by the run's own
    # rule (MemoryVerdict), and the ledger's parts in its processes (RoleLedger), which explain that PSS. Pure.
    module RoleMemory
      # Points of a role's series kept for the views.
      POINTS = 60
      # The tree from its root down; a role not named here comes after these.
      ORDER = %w[puma supervisor master parent dispatcher scheduler worker mold child].freeze

      module_function

      # @param run [Run::SoakRun]
      # @param steady [SteadyWindow::Window]
      # @return [Array<Summary::RolePart>, nil] nil for a run that is no job worker's, or whose titles say no roles
      def call(run, steady)
        return unless run.jobs?

        roles = roles(run.processes, run.meta.subject_pid)
        return if roles.values.uniq.size < 2

        known = { ledgers: RoleLedger.call(run, roles, steady) || {}, jobs: jobs(run, roles) }
        by_role(run.processes, roles).sort_by { |role, _| ORDER.index(role) || ORDER.size }
                                     .map { |role, ticks| part(run, role, ticks, steady, known) }
      end

      # The processes that do the work, by their titles (Puma's workers, Solid Queue's): empty when none says so.
      # @return [Array<Integer>]
      def worker_pids(run)
        roles(run.processes, run.meta.subject_pid).select { |_, role| role == "worker" }.keys
      end

      # Each process's role, by the last title it was seen with; Puma's numbered workers are one role, and a Puma
      # hosting Solid Queue is its own.
      def roles(samples, root)
        titles = samples.select(&:title).to_h { |sample| [sample.pid, sample.title] }
        hosting = TreeShape.hosts_jobs?(titles.values)
        titles.to_h { |pid, title| [pid, TreeShape.role(title, pid == root, hosts_jobs: hosting).sub(/ \d+\z/, "")] }
      end

      # @return [Hash{String => Hash{Float => Array}}] per role, its processes' [pid, PSS] at each tick
      def by_role(samples, roles)
        samples.select { |sample| roles[sample.pid] && sample.pss_kb }
               .group_by { |sample| roles[sample.pid] }
               .transform_values { |own| own.group_by(&:t).transform_values { |at| at.map { |s| [s.pid, s.pss_kb] } } }
      end

      def part(run, role, ticks, steady, known)
        series = ticks.sort.map { |t, held| [t, held.sum(&:last)] }
        Summary::RolePart.new(role: role, processes: ticks.values.flatten(1).map(&:first).uniq.size,
                              jobs: known[:jobs][role], **figures(series, steady),
                              verdict: verdict(run, series, steady), ledger: known[:ledgers][role])
      end

      def figures(series, steady)
        at = series.to_h
        steady_levels = steady.samples.filter_map { |sample| at[sample.t] }
        { steady_pss_kb: Statistics.median(steady_levels)&.round, first_pss_kb: series.first.last,
          last_pss_kb: series.last.last, peak_pss_kb: series.map(&:last).max, points: thinned(series) }
      end

      # The role's PSS over the steady window judged as the run's memory is (MemoryVerdict), against the whole tree's
      # jobs: a role that runs none is judged per 1,000 of the tree's. "too_thin" where no slope could be fitted.
      def verdict(run, series, steady)
        at = series.to_h
        samples = steady.samples.select { |sample| at[sample.t] }
        judged = MemoryVerdict.call(run, samples, samples.map { |sample| at[sample.t] })
        Summary::RoleVerdict.new(**judged, metric: "pss_kb", finding: judged[:ci] ? judged[:memory] : "too_thin")
      end

      # The jobs each role's processes ran: the agent's last count in each, summed; nil for a role the agent
      # recorded in none of its processes. Its intervals' records and its ledger readings both carry the process's
      # count, so a process whose one kind of record is missing is still counted by the other.
      def jobs(run, roles)
        records = (run.agent + run.ledger).select(&:requests).sort_by(&:t)
        counts = records.to_h { |record| [record.pid, record.requests] }
        counts.select { |pid, _| roles[pid] }.group_by { |pid, _| roles[pid] }
              .transform_values { |held| held.sum(&:last) }
      end

      # Every n-th point, the last kept.
      def thinned(series)
        step = (series.size / POINTS.to_f).ceil
        kept = series.each_slice(step).map(&:first)
        kept[-1] = series.last unless kept.last == series.last
        kept
      end

      private_class_method :by_role, :part, :figures, :verdict, :jobs, :thinned
    end
  end
end
