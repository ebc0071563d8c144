# frozen_string_literal: true

# What mallard's exporter (require "mallard/exporter") costs a Puma cluster:
# 1. CPU per scrape: the serving master's CPU time (utime + stime, /proc) over SCRAPES scrapes one a second,
#    less what the same master spends in as long without scrapes; and the background cost of the readings every
#    process writes (MALLARD_METRICS_INTERVAL, default 5 s): the whole tree's idle CPU with the exporter against
#    without it, interleaved. Projected: % of one core at a 15 s scrape interval.
# 2. Throughput: req/s of the same app with and without the exporter (scraped once a second, fifteen times the
#    usual rate, the worst case), wrk -c 10, in interleaved rounds (A B, B A, ...); the ratio per round, its median
#    and bootstrap 95% interval, as bench/agent_overhead.rb reports.
#   ruby bench/exporter_cost.rb [ROUNDS] [SECONDS] [APP] [WORKERS] [SCRAPES]
require_relative "support"
require "net/http"

rounds = Integer(ARGV.fetch(0, 6))
seconds = Integer(ARGV.fetch(1, 5))
app = ARGV.fetch(2, "stable")
workers = Integer(ARGV.fetch(3, 2))
scrapes = Integer(ARGV.fetch(4, 30))
stats = Mallard::Analysis::Statistics
lib = File.expand_path("../lib", __dir__)

exporter_env = lambda do
  { "RUBYOPT" => "-I#{lib} -rmallard/exporter", "MALLARD_METRICS" => "127.0.0.1:#{Mallard::Target::FreePort.pick}" }
end
scrape = lambda do |env|
  _, port = env["MALLARD_METRICS"].split(":")
  Net::HTTP.start("127.0.0.1", Integer(port)) do |http|
    http.get("/metrics", "Accept" => "application/openmetrics-text;version=1.0.0").body
  end
end
cpu = ->(pids) { Mallard::Probe::CpuTime.processes(pids) }
tree = ->(subject) { Mallard::Probe::ProcessTree.pids(subject.pid) }

# 1. CPU per scrape, and the writers' background CPU.
per_scrape = []
idle = { without: [], with: [] }
rounds.times do |round|
  %i[without with].rotate(round % 2).each do |variant|
    env = variant == :with ? exporter_env.call : {}
    Bench.with_puma(app, agent: false, workers: workers, extra_env: env) do |_url, subject|
      sleep 2 # workers booted, first readings written
      pids = tree.call(subject)
      before = cpu.call(pids)
      sleep seconds
      idle[variant] << ((cpu.call(pids) - before) / seconds)
      next if variant == :without

      lines = scrape.call(env).lines.size # the first scrape reads each process's maps once: not counted
      master = cpu.call([subject.pid])
      scrapes.times do
        scrape.call(env)
        sleep 1
      end
      spent = cpu.call([subject.pid]) - master - (idle[:with].last / pids.size * scrapes) # less its share of idle
      per_scrape << (spent / scrapes)
      puts format("  round %d: %d processes, %d lines, %.2f ms CPU per scrape", round + 1, pids.size, lines,
                  per_scrape.last * 1000)
    end
  end
end

# 2. Throughput, scraped once a second.
rps = { without: [], with: [] }
rounds.times do |round|
  %i[without with].rotate(round % 2).each do |variant|
    env = variant == :with ? exporter_env.call : {}
    Bench.with_puma(app, agent: false, workers: workers, extra_env: env) do |url, _subject|
      Bench.wrk(url, duration: 1) # warm-up, not counted
      scraper = Thread.new { loop { scrape.call(env) && sleep(1) } } if variant == :with
      rps[variant] << Bench.wrk(url, duration: seconds).rps
    ensure
      scraper&.kill
    end
  end
end

scrape_ms = stats.median(per_scrape) * 1000
writers = stats.median(idle[:with]) - stats.median(idle[:without])
ratios = rps[:with].zip(rps[:without]).map { |with, without| with / without }
low, high = stats.bootstrap_ci(ratios) { |sample| stats.median(sample) }
puts "app: #{app}, #{workers} workers, #{rounds} interleaved rounds of #{seconds} s, #{scrapes} scrapes a round"
puts format("  CPU per scrape: median %.2f ms (%s)", scrape_ms,
            per_scrape.map { |spent| format("%.2f", spent * 1000) }.join(", "))
puts format("  idle CPU of the tree: without %.3f%%, with %.3f%% of one core (readings every 5 s): +%.3f%%",
            stats.median(idle[:without]) * 100, stats.median(idle[:with]) * 100, writers * 100)
puts format("  at a 15 s scrape: %.3f%% of one core (scrapes %.3f%% + readings %.3f%%)",
            ((scrape_ms / 1000 / 15) + writers) * 100, scrape_ms / 1000 / 15 * 100, writers * 100)
rps.each do |variant, values|
  puts format("  %-8s median %.0f req/s  (%s)", variant, stats.median(values), values.map(&:round).join(", "))
end
puts format("  with/without (scraped every 1 s): median %.3f (95%% CI %.3f … %.3f) → %.1f%% of throughput",
            stats.median(ratios), low, high, (1 - stats.median(ratios)) * 100)
