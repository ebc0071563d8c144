# frozen_string_literal: true

# What the exporter's newest reads cost the app, each on its own:
# 1. Per request: counting it by method and path (Exporter::RequestCounter in front of the app: the path cut to its
#    route, a Mutex, a Hash), as ns a request more than the same trivial app called directly, on a rotation of
#    realistic paths (ids, a digest, a UUID, a query-less page), from 1 thread and from THREADS at once (the lock
#    contended as Puma's pool contends it).
# 2. Per scrape, against a real Puma cluster (WORKERS workers of the "stable" fixture): the memory cgroup's files
#    (Probe::CgroupMemory#read, the master only), each process's Cpus_allowed_list (/proc/PID/status, parsed), each
#    one's pool-thread count (a read of /proc/PID/task/*/comm per thread), and the tree's request sum
#    (RequestTotals#sum over every process's readings, 50 paths each); µs a scrape, and % of one core at a 15 s
#    scrape interval.
# Each in ROUNDS rounds of SECONDS; the median round and the range. The exporter's whole cost to throughput,
# counting included, is bench/exporter_cost.rb's.
#   ruby bench/exporter_reads_cost.rb [ROUNDS] [SECONDS] [WORKERS] [THREADS]
require_relative "support"
require "mallard/exporter/request_counter"
require "mallard/exporter/request_totals"

rounds = Integer(ARGV.fetch(0, 5))
seconds = Float(ARGV.fetch(1, 5))
workers = Integer(ARGV.fetch(2, 4))
threads = Integer(ARGV.fetch(3, 5))
stats = Mallard::Analysis::Statistics
clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
cpu = -> { Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) }

# Calls the block for about SECONDS; @return [Float] the calling thread's CPU seconds a call (CPU time, not wall
# time: what the app pays, and less disturbed by what else the machine runs)
per_call = lambda do |&block|
  calls = 0
  started = cpu.call
  deadline = clock.call + seconds
  while clock.call < deadline
    100.times { block.call }
    calls += 100
  end
  (cpu.call - started) / calls
end
report = lambda do |label, values, unit, scale|
  figures = values.map { |value| value * scale }
  puts format("  %-48s median %9.2f %s (%.2f … %.2f)", label, stats.median(figures), unit, figures.min, figures.max)
end

# A thread's calls of the app, each on the next of the paths (threads start at different ones).
def rotation(per_call, callee, envs, start)
  index = start
  per_call.call { callee.call(envs[(index += 1) % envs.size]) }
end

# 1. Per request.
paths = ["/", "/users/1234", "/users/1234/posts", "/blobs/0123456789abcdef0123", "/search",
         "/orders/123e4567-e89b-12d3-a456-426614174000", "/assets/app.css", "/api/v2/items/77"]
envs = paths.map { |path| { "REQUEST_METHOD" => "GET", "SCRIPT_NAME" => "", "PATH_INFO" => path } }
app = ->(_env) { [200, {}, ["ok"]] }
counted = Mallard::Exporter::RequestCounter.new(app)
request_ns = { 1 => [], threads => [] }
rounds.times do
  request_ns.each_key do |count|
    plain, with = [app, counted].map do |callee|
      Array.new(count) { |t| Thread.new { rotation(per_call, callee, envs, t) } }.map(&:value).sum / count
    end
    request_ns[count] << (with - plain)
  end
end

# 2. Per scrape, on a real tree.
scrape_us = Hash.new { |hash, key| hash[key] = [] }
Bench.with_puma("stable", agent: false, workers: workers) do |_url, subject|
  sleep 2 # workers booted
  pids = Mallard::Probe::ProcessTree.pids(subject.pid)
  cgroup = Mallard::Probe::CgroupMemory.of(subject.pid)
  readings = pids.to_h { |pid| [pid, Array.new(50) { |i| ["request.GET:/page#{i}", (pid * i) + 1] }.to_h] }
  totals = Mallard::Exporter::RequestTotals.new
  allowed = "Cpus_allowed_list"
  reads = {
    "cgroup files (master)" => -> { cgroup&.read },
    "Cpus_allowed_list (every process)" => lambda do
      pids.each { |pid| Mallard::Cpus::Layout.parse_list(Mallard::Probe::ProcFiles.new(pid).status.fetch(allowed)) }
    end,
    "pool threads (every process)" => -> { pids.each { |pid| Mallard::Probe::PumaTree.pool_threads(pid, "/proc") } },
    "request sum (#{pids.size} processes x 50 paths)" => -> { totals.sum(readings, pids) }
  }
  puts "tree: #{pids.size} processes, #{cgroup ? 'a memory cgroup' : 'no memory cgroup found'}"
  rounds.times { reads.each { |label, read| scrape_us[label] << per_call.call(&read) } }
end

puts "#{rounds} rounds of #{seconds} s; #{workers} workers; #{threads} threads for the contended count"
request_ns.each { |count, values| report.call("count a request, #{count} thread(s)", values, "ns", 1e9) }
scrape_us.each { |label, values| report.call("a scrape's #{label}", values, "µs", 1e6) }
total = scrape_us.values.sum { |values| stats.median(values) }
puts format("  every read above, a scrape every 15 s: %.4f%% of one core", total / 15 * 100)
