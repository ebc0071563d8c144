# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Summary
    # One job class of a job worker's run (Analysis::JobClasses): its name (job_class: a member named `class` would
    # hide Object#class), jobs finished and failed, its share of the jobs/s, its time p50 and p99 in ms (from the rows
    # the agent sampled), and the KiB its jobs left behind per 1,000 with the 95% interval (Analysis::ClassGrowth; nil
    # when not fitted); judgement: "growing", "not_growing" or "too_thin", and why when too thin ("few_jobs",
    # "few_intervals", "collinear", "wide").
    JobClass = Value.define(:job_class, :jobs, :per_s, :time_ms_p50, :time_ms_p99, :failed, :growth_kb_per_1k_jobs,
                            :growth_kb_per_1k_jobs_ci, :judgement, :why)
  end
end
