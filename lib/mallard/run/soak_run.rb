# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Run
    # One soak's run directory, read once: everything the analysis and the views need, as values.
    #
    # totals: the sampler's summed ticks, in time order; processes: per-process ticks; agent: the in-process
    # agent's records, in time order; gc_events: every GC the agent's per-GC timeline saw, in time order;
    # gc_drops: the GCs it lost, when (Run::GcDrop); load: the load tool's result (nil for a script or a run killed
    # before load ended); jobs: a job worker's queues at each tick; workload: how a job worker's workload ended
    # (nil otherwise); summary: the stored summary.json, nil when the run never wrote one; skipped: damaged lines;
    # ledger: each process's memory ledger every few seconds (Run::LedgerRecord), in time order; ramp: the steps of
    # `--concurrency auto` before the load (Run::Ramp; nil without it); cgroups: the subject's memory cgroup every few
    # seconds (Run::CgroupSample; empty where it sits in none that can be read).
    SoakRun = Struct.new(:path, :meta, :totals, :processes, :agent, :gc_events, :gc_drops, :load, :jobs, :workload,
                         :summary, :skipped, :ledger, :ruby_states, :ramp, :cgroups, keyword_init: true) do
      include Value::Copy

      def phases = meta.phases || Phases.new
      def target = meta.target || TargetInfo.new
      def script? = target.kind == "script"

      # Lists a run does not have (a web app's jobs, an agent-less run's ledger) are empty, not nil.
      def initialize(jobs: nil, ledger: nil, ruby_states: nil, cgroups: nil, **members)
        super(jobs: jobs || [], ledger: ledger || [], ruby_states: ruby_states || [], cgroups: cgroups || [], **members)
      end

      def jobs? = target.jobs?

      # A job worker soaked with no workload (soak --idle): its slopes are over time.
      def idle? = (meta.options || {})["idle"] == true

      # What the subject's work is counted in: the agent's count and every slope's x axis (an idle soak's: seconds).
      def unit
        return "seconds idle" if idle?

        jobs? ? "jobs" : "requests"
      end

      # The sampling interval the run asked for (the agent writes at the same pace).
      def interval = (meta.options || {}).fetch("interval", 0.5)

      # The ticks taken while load ran: every steady-state figure comes from these.
      def load_totals
        window = phases.load_window
        totals.select { |sample| window.cover?(sample.t) }
      end
    end
  end
end
