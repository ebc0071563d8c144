# frozen_string_literal: true

# How much memory the agent itself adds over time: RSS growth of the same Puma app with and without mallard's
# agent across a stretch of wrk load taken after a warm-up, per 100,000 requests, in interleaved rounds. One
# Puma thread by default, so glibc's per-thread arenas (which creep on their own with several threads) do not
# hide the agent's share.
#   ruby bench/agent_memory.rb [ROUNDS] [SECONDS] [APP] [THREADS]
require_relative "support"

rounds = Integer(ARGV.fetch(0, 3))
seconds = Integer(ARGV.fetch(1, 30))
app = ARGV.fetch(2, "stable")
threads = Integer(ARGV.fetch(3, 1))
stats = Mallard::Analysis::Statistics
growth = { without: [], with: [] }

rss_kb = ->(pid) { File.read("/proc/#{pid}/status")[/^VmRSS:\s+(\d+)/, 1].to_i }

rounds.times do |round|
  %i[without with].rotate(round % 2).each do |variant|
    Bench.with_puma(app, agent: variant == :with, threads: threads) do |url, subject|
      Bench.wrk(url, duration: 5) # warm-up: the heap finds its size; not counted
      before = rss_kb.call(subject.pid)
      requests = Bench.wrk(url, duration: seconds).requests
      growth[variant] << ((rss_kb.call(subject.pid) - before) * 100_000.0 / requests)
    end
  end
end

puts "app: #{app}, Puma #{threads} thread(s), #{rounds} interleaved rounds of #{seconds} s after a 5 s warm-up"
growth.each do |variant, values|
  puts format("  %-8s RSS growth per 100k requests: median %.0f KB  (%s)", variant, stats.median(values),
              values.map(&:round).join(", "))
end
