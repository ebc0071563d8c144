# frozen_string_literal: true

module Mallard
  module Agent
    # The variables by which mallard asks the agent for the parts only some runs need. The agent loads each part only
    # when it is asked for: a part's code is live slots in the app's heap from boot, and an allocation-bound app's
    # GCs run differently with every thousand objects more at boot (bench/README.md).
    module Switches
      # `mallard heap`'s directory of dump requests (HeapDumper).
      HEAP_DIR = "MALLARD_HEAP_DIR"
      # In a job worker: "on" for Sidekiq's server middleware to record its jobs (SidekiqHook), ACTIVE_JOB for Active
      # Job's notifications (ActiveJobHook: Solid Queue), RESQUE for Resque's jobs (ResqueHook).
      JOBS = "MALLARD_JOBS"
      ACTIVE_JOB = "active_job"
      RESQUE = "resque"
      # Seconds without a major GC after which the agent runs a full GC, for an exact reading of the live set
      # (FullGc); unset: never.
      FULL_GC = "MALLARD_FULL_GC_EVERY"
    end
  end
end
