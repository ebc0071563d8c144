# frozen_string_literal: true

# CPU the sampler costs mallard: every interval it lists the subject's process tree and reads
# smaps_rollup for each process. Measured as this process's CPU time over wall time while
# sampling a Puma with workers under load.
#   ruby bench/sampler_cost.rb [SECONDS] [WORKERS]
require_relative "support"

seconds = Float(ARGV.fetch(0, 20))
workers = Integer(ARGV.fetch(1, 2))

Bench.with_puma("stable", agent: false, workers: workers) do |url, subject|
  load = Mallard::Probe::Wrk.new(url: url, duration: (seconds * 3).ceil, concurrency: 10, log_path: File::NULL)
  load.start
  [0.5, 0.1].each do |interval|
    sampler = Mallard::Probe::Sampler.new(root_pid: subject.pid, writer: [], clock: -> { 0.0 })
    sampler.sample # the first tick pays one-time costs (method caches, file lookups); not counted
    ticks = (seconds / interval).round
    cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    wall = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    processes = 0
    ticks.times do
      processes = sampler.sample[:processes]
      sleep interval
    end
    cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu
    wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - wall
    puts format("interval %.1f s, %d processes, %d ticks: %.2f ms CPU per tick, %.2f%% of one core",
                interval, processes, ticks, cpu / ticks * 1000, cpu / wall * 100)
  end
  load.stop
end
