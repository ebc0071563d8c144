# frozen_string_literal: true

# What the copy-on-write decay readings cost the app: a soak with workers reads every process's smaps_rollup each
# tick (its RSS, PSS and USS, from which shared and private memory per worker come), and the kernel walks that
# process's page tables under its memory map's lock, which the app's own page faults need. The same Puma (2 workers,
# the demo app) under wrk, with the sampler reading its whole tree every INTERVAL seconds and without, in interleaved
# rounds (A B, B A, …); the ratio of req/s and of p99 per round, its median and bootstrap 95% interval.
#   ruby bench/sharing_readings_cost.rb [ROUNDS] [SECONDS] [INTERVAL]
require_relative "support"

rounds = Integer(ARGV.fetch(0, 8))
seconds = Integer(ARGV.fetch(1, 8))
interval = Float(ARGV.fetch(2, 0.5))
demo = File.expand_path("../examples/demo", __dir__)

rps = { off: [], on: [] }
p99 = { off: [], on: [] }
ticks = []
rounds.times do |round|
  %i[off on].rotate(round % 2).each do |variant|
    Bench.with_puma(demo, agent: false, workers: 2, threads: 5) do |url, subject|
      Bench.wrk(url, duration: 2) # warm-up, not counted
      if variant == :on
        sampler = Mallard::Probe::Sampler.new(root_pid: subject.pid, writer: [], clock: -> { 0.0 })
        reader = Thread.new do
          loop do
            sampler.sample
            ticks << 1
            sleep interval
          end
        end
      end
      result = Bench.wrk(url, duration: seconds)
      rps[variant] << result.rps
      p99[variant] << result.latency_ms[:p99]
    ensure
      reader&.kill
    end
  end
end

puts "app: examples/demo, Puma 2 workers × 5 threads, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10; " \
     "readings of the whole tree every #{interval} s (#{ticks.size} ticks in all)"
Bench.print_rates(rps, :on, :off, "req/s on/off")
Bench.print_ratio(p99, :on, :off, "p99 on/off", unit: "ms", digits: 2)
