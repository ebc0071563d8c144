# frozen_string_literal: true

# What a whole `mallard soak` costs the app's throughput (the agent inside, the sampler and the run directory
# outside) against the same Puma under plain wrk, with the CPUs laid out as mallard lays them out by default (the
# server on its CPUs, wrk and mallard on the others), in interleaved rounds.
#   ruby bench/soak_overhead.rb [ROUNDS] [SECONDS] [APP_DIR]
require_relative "support"
require "json"
require "stringio"

rounds = Integer(ARGV.fetch(0, 6))
seconds = Integer(ARGV.fetch(1, 10))
app = File.expand_path(ARGV.fetch(2, File.join(__dir__, "../examples/demo")))
layout = Mallard::Cpus::Layout.choose(nil, available: Mallard::Cpus::Affinity.allowed)
abort "needs 2 CPUs to lay out as mallard does: #{layout.reason}" unless layout.pinned
rps = { plain: [], mallard: [] }

measure = {
  plain: lambda do
    own = Mallard::Cpus::Affinity.allowed
    Mallard::Cpus::Affinity.pin_process(layout.load)
    Bench.with_puma(app, agent: false, cpus: layout.subject) do |url, _subject|
      Bench.wrk(url, duration: seconds).rps
    end
  ensure
    Mallard::Cpus::Affinity.pin_process(own)
  end,
  mallard: lambda do
    Dir.mktmpdir("mallard-soak-overhead") do |dir|
      out = StringIO.new
      argv = ["soak", app, "--duration", seconds.to_s, "--json", "--out", File.join(dir, "run")]
      Mallard::CLI.new.run(argv, out: out, err: StringIO.new, env: {})
      JSON.parse(out.string).dig("load", "rps")
    end
  end
}

rounds.times do |round|
  %i[plain mallard].rotate(round % 2).each { |variant| rps[variant] << measure.fetch(variant).call }
end

puts "app: #{app}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10, #{layout.description}"
ratio = Bench.print_rates(rps, :mallard, :plain, "mallard/plain")
puts format("  → a soak costs %.1f%% of throughput", (1 - ratio) * 100)
