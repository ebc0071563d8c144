# frozen_string_literal: true

# What CPU placement does to the answer: `mallard compare` of glibc against glibc-arena2 on the fragmenting fixture
# (five Puma threads keeping a random sample of varied-size strings), once with every CPU shared (the default, as
# in production) and once with the subject confined (--cpus split), one after the other.
#   ruby bench/cpu_placement.rb [REPEATS] [SECONDS]
require_relative "support"
require "json"
require "stringio"

repeats = Integer(ARGV.fetch(0, 3))
seconds = Integer(ARGV.fetch(1, 20))
app = File.expand_path("../test/fixtures/apps/fragmenting", __dir__)

def compare(app, repeats, seconds, cpus)
  Dir.mktmpdir("mallard-cpu-placement") do |dir|
    out = StringIO.new
    argv = ["compare", app, "--allocators", "glibc,glibc-arena2,jemalloc", "--repeat", repeats.to_s, "--duration",
            seconds.to_s, "--threads", "5", "--concurrency", "8", "--json", "--out", File.join(dir, "run"), *cpus]
    Mallard::CLI.new.run(argv, out: out, err: StringIO.new, env: ENV)
    JSON.parse(out.string)
  end
end

{ "shared (default)" => [], "confined (--cpus split)" => ["--cpus", "split"] }.each do |label, cpus|
  summary = compare(app, repeats, seconds, cpus)
  puts "#{label}: #{summary.dig('cpu_layout', 'reason')}"
  summary["configs"].each do |config|
    versus = config["vs_baseline"]
    change = versus ? format("%+.1f%% (95%% CI %+.1f … %+.1f)", versus["rss_pct"], *versus["rss_pct_ci"]) : "baseline"
    puts format("  %-14s steady RSS %7.1f MiB  %s  req/s %.0f", config["name"],
                config.dig("steady_rss_kb", "median") / 1024.0, change, config.dig("rps", "median"))
  end
end
