# frozen_string_literal: true

module Mallard
  module Analysis
    # Whether a soak measured what it meant to, from what the run already records. A run that fails a check is
    # shown, but counts in no comparison: one Puma worker that served nothing (wrk's keep-alive connections
    # stick to whichever worker accepted them) runs a lighter app than its peers, and its lower memory once
    # moved a recommendation.
    module Validity
      # A worker serving under this share of an even split did not get the load its peers did.
      MIN_FAIR_SHARE = 0.25
      # Other processes using more than half a core on average compete with the subject and the load tool.
      MAX_FOREIGN_CORES = 0.5
      # An open loop whose requests left late this often did not hold its rate: the app could not keep up.
      MAX_LATE_PCT = 5.0

      module_function

      # @param run [Run::SoakRun]
      # @return [Summary::Validity]
      def call(run)
        served = requests_per_worker(run)
        worked = served.empty? ? cpu_per_worker(run) : {}
        foreign = foreign_cores(run.load_totals)
        starved = unreached(served, "requests per process", "served") ||
                  unreached(worked, "CPU seconds per worker while load ran", "worked")
        problems = [starved, busy_machine(foreign), behind_rate(run.load)].compact
        Summary::Validity.new(problems: problems, requests_per_process: served.transform_keys(&:to_s),
                              cpu_s_per_worker: worked.transform_keys(&:to_s), foreign_cores: foreign)
      end

      # Cores' worth of CPU the rest of the machine used while load ran: the machine's busy time less mallard's
      # own tree (itself, the load tool, the subject).
      def foreign_cores(samples)
        counted = samples.select { |sample| sample.machine_cpu_s && sample.own_cpu_s }
        return if counted.size < 2

        first, last = counted.values_at(0, -1)
        seconds = last.t - first.t
        return unless seconds.positive?

        foreign = (last.machine_cpu_s - first.machine_cpu_s) - (last.own_cpu_s - first.own_cpu_s)
        [foreign / seconds, 0.0].max.round(3)
      end

      # Its latency would describe a load other than the one asked for: wrk times a request from when it left.
      def behind_rate(load)
        late = LoadFigures.late_pct(load)
        return unless late && late > MAX_LATE_PCT

        format("the app could not keep up with --rate %g: %.1f%% of requests left late (up to %.0f ms), so the " \
               "latency figures understate the wait at that rate; lower --rate or add --concurrency",
               load.target_rate, late, load.max_late_ms)
      end

      def busy_machine(foreign)
        return unless foreign && foreign > MAX_FOREIGN_CORES

        format("the machine was busy with other work: %.2f cores on average outside mallard and its subject " \
               "while load ran (limit %.2f)", foreign, MAX_FOREIGN_CORES)
      end

      # The agent's last count per process, leaving out a cluster's master: it forks the workers and serves
      # nothing itself. Where the titles name the workers, theirs alone: a job backend's dispatcher and scheduler
      # run no jobs.
      def requests_per_worker(run)
        master = run.meta.subject_pid
        latest = run.agent.select(&:requests).to_h { |record| [record.pid, record.requests] }
        latest.delete(master) if latest.size > 1
        workers = RoleMemory.worker_pids(run)
        workers.empty? ? latest : latest.slice(*workers)
      end

      # A run with no agent counts no requests (the headline runs carry no mallard code), so the work each worker did
      # is its CPU while load ran, from outside: each worker's seconds from the load's first tick to its last. A
      # worker forked again meanwhile (a refork, a restart) was not there for all of it and is not judged.
      def cpu_per_worker(run)
        totals = run.load_totals
        return {} if totals.size < 2

        load = totals.first.t..totals.last.t
        workers(run, load).select { |_, own| own.first.t == load.begin && own.last.t == load.end }
                          .transform_values { |own| (own.last.cpu_s - own.first.cpu_s).round(3) }
      end

      # @return [Hash{Integer => Array<Run::ProcessSample>}] each worker's ticks in the load that read its CPU, in
      #   time order
      def workers(run, load)
        pids = RoleMemory.worker_pids(run)
        run.processes.select { |sample| sample.cpu_s && load.cover?(sample.t) && pids.include?(sample.pid) }
           .group_by(&:pid)
      end

      # @param shares [Hash] each worker's work, by `measure`
      def unreached(shares, measure, verb)
        return if shares.size < 2 || shares.values.sum.zero?

        fair = shares.values.sum.to_f / shares.size
        starved = shares.count { |_, share| share < fair * MIN_FAIR_SHARE }
        return if starved.zero?

        "load did not reach every worker: #{measure} #{shares.values.inspect} " \
          "(#{starved} #{verb} under #{(MIN_FAIR_SHARE * 100).round}% of an even share)"
      end
    end
  end
end
