# frozen_string_literal: true

# What loading a two-worker Puma a request a connection does to what is measured: the cow_decay fixture's preloaded
# 2x1 tree (its workers write into the pages they share as they serve) soaked at --rate 30 for 8 s, rounds
# alternating wrk's keep-alive connections and a new connection a request (compare's load wherever a row's Puma
# forks more than one worker). Per way: the tree's shared memory and summed PSS, how the two workers split the CPU,
# and the tree's CPU while load ran, whose ratio round by round is the cost of connecting a request.
#   ruby bench/keepalive_split.rb [ROUNDS] [RUBY]
require_relative "support"
require "json"

rounds = Integer(ARGV.fetch(0, 6))
ruby = ARGV.fetch(1, "/var/cache/mallard/rubies/ruby-3.3.8/bin/ruby")
app = File.join(Bench::APPS, "cow_decay")
WAYS = { "keep-alive" => false, "new" => true }.freeze

def soak(app, ruby, reconnect, dir)
  options = Mallard::Experiments::SoakOptions.defaults.tap do |o|
    o.duration = 8
    o.rate = 30.0
    o.max_error_pct = 10.0
    o.agent = false
    o.reconnect = reconnect
    o.ruby = ruby
  end
  options.validate!
  target = Mallard::Target::RackApp.new(dir: app, threads: 1, workers: 2)
  run_dir = Mallard::Run::Directory.create(command: "soak", out: dir)
  Mallard::Experiments::Soak.new(target: target, options: options, run_dir: run_dir,
                                 reporter: Mallard::Report::SilentProgress.new).call
  JSON.parse(File.read(File.join(dir, "summary.json")))
end

figures = WAYS.keys.to_h { |way| [way, Hash.new { |hash, key| hash[key] = [] }] }
Dir.mktmpdir("mallard-keepalive-split") do |root|
  rounds.times do |round|
    WAYS.each do |way, reconnect|
      summary = soak(app, ruby, reconnect, File.join(root, "#{way}-#{round}"))
      abort "bench: #{way} round #{round} ended #{summary['status']}" unless summary["status"] == "complete"
      split = summary.dig("validity", "cpu_s_per_worker").values
      figures[way][:shared] << (summary.dig("memory", "tree", "steady_shared_kb") / 1024.0)
      figures[way][:pss] << (summary.dig("memory", "steady_pss_kb") / 1024.0)
      figures[way][:split] << (split.min / split.sum)
      figures[way][:cpu] << summary.dig("load", "cpu_s")
      puts format("round %d %-10s shared %5.1f MiB  PSS %6.1f MiB  workers' CPU %s s  tree's CPU %.2f s", round, way,
                  figures[way][:shared].last, figures[way][:pss].last, split.inspect, figures[way][:cpu].last)
    end
  end
end

stats = Mallard::Analysis::Statistics
figures.each do |way, by|
  %i[shared pss].each do |key|
    values = by[key]
    puts format("%-10s %-6s %5.1f … %5.1f MiB, standard deviation %.1f MiB", way, key, values.min, values.max,
                stats.stddev(values))
  end
  puts format("%-10s the lesser worker's share of the workers' CPU: %.2f … %.2f", way, by[:split].min, by[:split].max)
end
puts "the tree's CPU while load ran, a request a connection against keep-alive:"
cpu = figures.transform_values { |by| by[:cpu] }
Bench.print_ratio(cpu, "new", "keep-alive", "new / keep-alive", unit: "s", digits: 2)
