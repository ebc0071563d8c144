# frozen_string_literal: true

# What mallard's agent costs an app: the same Puma with and without it, in interleaved rounds (A B, B A, …) so that
# machine drift hits both alike; req/s from wrk, and CPU time per request from the server's /proc/PID/stat over the
# measured window. APP: a fixture's name, a directory holding config.ru, or "rails" (the generated Rails 6.1 app of
# test/support/rails_app.rb, with a page that renders 3,000 rows).
#   ruby bench/agent_overhead.rb [ROUNDS] [SECONDS] [APP]
require_relative "support"

rounds = Integer(ARGV.fetch(0, 6))
seconds = Integer(ARGV.fetch(1, 5))
app, path, extra_env = Bench.app_of(ARGV.fetch(2, "hello"))
rps = { without: [], with: [] }
cpu = { without: [], with: [] }

rounds.times do |round|
  %i[without with].rotate(round % 2).each do |variant|
    Bench.with_puma(app, agent: variant == :with, extra_env: extra_env) do |url, subject|
      Bench.wrk(url + path, duration: 1) # warm the server up; not counted
      before = Mallard::Probe::CpuTime.processes([subject.pid])
      result = Bench.wrk(url + path, duration: seconds)
      rps[variant] << result.rps
      cpu[variant] << ((Mallard::Probe::CpuTime.processes([subject.pid]) - before) * 1000 / result.requests)
    end
  end
end

puts "app: #{app}#{path}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10"
ratio = Bench.print_rates(rps, :with, :without, "req/s with/without")
puts format("  → agent cost %.1f%% of throughput", (1 - ratio) * 100)
cpu_ratio = Bench.print_ratio(cpu, :with, :without, "CPU per request with/without", unit: "ms")
puts format("  → agent cost %+.1f%% of CPU per request", (cpu_ratio - 1) * 100)
