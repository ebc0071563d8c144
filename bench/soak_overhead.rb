# frozen_string_literal: true

# What a whole `mallard soak` costs the app's throughput (the agent inside, the sampler and the run directory
# outside) against the same Puma under plain wrk, both with every CPU shared as mallard shares them by default, in
# interleaved rounds.
#   ruby bench/soak_overhead.rb [ROUNDS] [SECONDS] [APP]
require_relative "support"
require "json"
require "stringio"

rounds = Integer(ARGV.fetch(0, 6))
seconds = Integer(ARGV.fetch(1, 10))
app, path, extra_env = Bench.app_of(ARGV.fetch(2, File.expand_path("../examples/demo", __dir__)))
ENV.update(extra_env) # the subject inherits mallard's environment
rps = { plain: [], mallard: [] }

measure = {
  plain: lambda do
    Bench.with_puma(app, agent: false) { |url, _subject| Bench.wrk(url + path, duration: seconds).rps }
  end,
  mallard: lambda do
    Dir.mktmpdir("mallard-soak-overhead") do |dir|
      out = StringIO.new
      argv = ["soak", app, "--duration", seconds.to_s, "--json", "--path", "/#{path}", "--out", File.join(dir, "run")]
      Mallard::CLI.new.run(argv, out: out, err: StringIO.new, env: ENV)
      JSON.parse(out.string).dig("load", "rps")
    end
  end
}

rounds.times do |round|
  %i[plain mallard].rotate(round % 2).each { |variant| rps[variant] << measure.fetch(variant).call }
end

puts "app: #{app}/#{path}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10, every CPU shared"
ratio = Bench.print_rates(rps, :mallard, :plain, "mallard/plain")
puts format("  → a soak costs %.1f%% of throughput", (1 - ratio) * 100)
