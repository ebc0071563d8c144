# frozen_string_literal: true

# Throughput of the same app with and without mallard's agent (GC timeline + Rack middleware),
# measured with wrk in interleaved runs (A B A B ...) so machine drift hits both alike.
#   ruby bench/agent_overhead.rb [ROUNDS] [SECONDS] [APP]
require_relative "support"

rounds = Integer(ARGV.fetch(0, 6))
seconds = Integer(ARGV.fetch(1, 5))
app = ARGV.fetch(2, "hello")
rps = { without: [], with: [] }

rounds.times do |round|
  %i[without with].rotate(round % 2).each do |variant|
    Bench.with_puma(app, agent: variant == :with) do |url, _subject|
      Bench.wrk(url, duration: 1) # warm the server up; not counted
      rps[variant] << Bench.wrk(url, duration: seconds).rps
    end
  end
end

puts "app: #{app}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10"
ratio = Bench.print_rates(rps, :with, :without, "with/without")
puts format("  → agent cost %.1f%% of throughput", (1 - ratio) * 100)
