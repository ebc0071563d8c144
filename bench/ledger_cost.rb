# frozen_string_literal: true

# What the memory ledger costs (Agent::Ledger: RSS's parts read inside the app every N seconds; glibc's
# mallinfo2 walks every free chunk, so a fragmented heap makes each reading dearer):
# 1. throughput of the demo app (which fragments glibc) with the agent, the ledger off and on at the interval
#    given, in interleaved rounds (each round rotates the order) so machine drift hits both alike;
# 2. each reading's own CPU time, as the ledger lines record it (cost_ms), and that as a share of one core at
#    the interval: the ledger's whole price, however busy the app.
#   ruby bench/ledger_cost.rb [ROUNDS] [SECONDS] [INTERVAL_S] [APP]
require_relative "support"
require "json"
require "mallard/agent/ledger"

rounds = Integer(ARGV.fetch(0, 8))
seconds = Integer(ARGV.fetch(1, 10))
interval = Float(ARGV.fetch(2, Mallard::Agent::Ledger::DEFAULT_INTERVAL))
app = ARGV.fetch(3, File.expand_path("../examples/demo", __dir__))
stats = Mallard::Analysis::Statistics
variants = { off: "off", on: interval.to_s }
rps = variants.keys.to_h { |variant| [variant, []] }
costs = []

rounds.times do |round|
  variants.to_a.rotate(round % variants.size).each do |variant, setting|
    Bench.with_puma(app, agent: true, extra_env: { "MALLARD_LEDGER_INTERVAL" => setting }) do |url, _subject, run_dir|
      Bench.wrk(url, duration: 1) # warm the server up; not counted
      rps[variant] << Bench.wrk(url, duration: seconds).rps
      next if variant == :off

      lines = File.foreach(run_dir.file("agent.jsonl")).map { |line| JSON.parse(line) }
      costs.concat(lines.select { |line| line["kind"] == "ledger" }.filter_map { |line| line["cost_ms"] })
    end
  end
end

puts "app: #{app}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10, agent on in all, ledger every #{interval} s"
ratio = Bench.print_rates(rps, :on, :off, "ledger on/off")
puts format("  → ledger cost %.2f%% of throughput", (1 - ratio) * 100)
unless costs.empty?
  puts format("  a reading: median %.3f ms CPU, p99 %.3f ms, max %.3f ms (%d readings) → %.4f%% of a core",
              stats.median(costs), stats.percentile(costs, 99), costs.max, costs.size,
              stats.median(costs) / (interval * 1000) * 100)
end
