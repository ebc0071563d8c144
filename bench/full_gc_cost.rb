# frozen_string_literal: true

# What the soak agent's full GCs for an exact live set cost an app (Agent::FullGc, `soak --full-gc-every`): the
# same Puma with the agent, the full GCs off and on every EVERY seconds without a major GC, in interleaved rounds
# (A B, B A, …) so that machine drift hits both alike. Per round: req/s from wrk, the server's CPU per request
# from /proc/PID/stat, its RSS as the load ends (/proc/PID/smaps_rollup), and in the "on" rounds the full GCs the
# agent ran (major_by "force" in its per-GC timeline) and their pauses. APP: a fixture's name, a directory holding
# config.ru, or "rails" (the generated Rails 6.1 app with a page of 3,000 rows).
#   ruby bench/full_gc_cost.rb [ROUNDS] [SECONDS] [EVERY] [APP] [THREADS]
require_relative "support"
require "json"

rounds = Integer(ARGV.fetch(0, 6))
seconds = Integer(ARGV.fetch(1, 40))
every = Float(ARGV.fetch(2, 10))
app, path, extra_env = Bench.app_of(ARGV.fetch(3, "rails"))
threads = Integer(ARGV.fetch(4, 5))
stats = Mallard::Analysis::Statistics
figures = { rps: {}, cpu: {}, rss: {} }.transform_values { { off: [], on: [] } }
forced = []

def forced_pauses(run_dir)
  File.foreach(run_dir.file("agent.jsonl")).map { |line| JSON.parse(line) }.select { |line| line["kind"] == "gc" }
      .flat_map { |line| line["events"] }.select { |event| event[4] == "force" }.map { |event| event[1] }
end

rounds.times do |round|
  %i[off on].rotate(round % 2).each do |variant|
    env = extra_env.merge(variant == :on ? { Mallard::Agent::Switches::FULL_GC => every.to_s } : {})
    Bench.with_puma(app, agent: true, threads: threads, extra_env: env) do |url, subject, run_dir|
      Bench.wrk(url + path, duration: 2, concurrency: 4) # warm the server up; not counted
      before = Mallard::Probe::CpuTime.processes([subject.pid])
      result = Bench.wrk(url + path, duration: seconds, concurrency: 4)
      figures[:rps][variant] << result.rps
      figures[:cpu][variant] << ((Mallard::Probe::CpuTime.processes([subject.pid]) - before) * 1000 / result.requests)
      figures[:rss][variant] << (File.read("/proc/#{subject.pid}/smaps_rollup")[/^Rss:\s+(\d+)/, 1].to_f / 1024)
      forced << forced_pauses(run_dir) if variant == :on
    end
  end
end

puts "app: #{app} /#{path}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 4, #{threads} threads, agent on in " \
     "both, full GC after #{every} s without a major in 'on'"
Bench.print_rates(figures[:rps], :on, :off, "req/s on/off")
Bench.print_ratio(figures[:cpu], :on, :off, "CPU per request on/off", unit: "ms")
Bench.print_ratio(figures[:rss], :on, :off, "RSS as the load ends on/off", unit: "MiB", digits: 1)
pauses = forced.flatten
counts = forced.map(&:size)
unless pauses.empty?
  puts format("  full GCs run: %s a round of %d s (%.1f a minute); pause median %.2f ms, max %.2f ms; %.0f ms of GC " \
              "a minute of load", counts.join(", "), seconds + 2, stats.median(counts) * 60.0 / (seconds + 2),
              stats.median(pauses), pauses.max, pauses.sum / forced.size * 60.0 / (seconds + 2))
end
puts "  no full GC was run: the app's own major GCs came more often than every #{every} s" if pauses.empty?
