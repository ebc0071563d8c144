# frozen_string_literal: true

# What `mallard heap` costs and how fast it reads, in two parts.
#
# 1. Allocation tracing: throughput of the same app with mallard's agent, without and with MALLARD_HEAP_DIR (which
#    turns ObjectSpace.trace_object_allocations_start on for the whole run; no dump is requested here), wrk -c 10
#    in interleaved rounds.
# 2. Reading dumps: three dumps of one process (a Rails app booted with tracing on, keeping a known amount between
#    dumps) analysed by `mallard heap diff A B C` and by heapy's `heapy diff A B C`, interleaved; wall time and
#    peak RSS (GNU time's %M) of each process, and MB/s as the three dumps' bytes over the wall time.
#   ruby bench/heap_cost.rb [ROUNDS] [SECONDS] [APP]
require_relative "support"
require "json"
require "open3"
require_relative "../test/support/rails_app"

rounds = Integer(ARGV.fetch(0, 5))
seconds = Integer(ARGV.fetch(1, 5))
app = ARGV.fetch(2, "stable")
stats = Mallard::Analysis::Statistics

rps = { agent: [], tracing: [] }
Dir.mktmpdir("mallard-bench-heap") do |heap_dir|
  rounds.times do |round|
    %i[agent tracing].rotate(round % 2).each do |variant|
      extra = variant == :tracing ? { "MALLARD_HEAP_DIR" => heap_dir } : {}
      Bench.with_puma(app, agent: true, extra_env: extra) do |url, _subject|
        Bench.wrk(url, duration: 1)
        rps[variant] << Bench.wrk(url, duration: seconds).rps
      end
    end
  end
end
puts "allocation tracing, app #{app}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10:"
Bench.print_rates(rps, :tracing, :agent, "tracing / agent alone")

dumps = Dir.mktmpdir("mallard-bench-dumps")
code = <<~RUBY
  require "objspace"
  ObjectSpace.trace_object_allocations_start
  require "./config/environment"
  kept = []
  dump = ->(name) { GC.start; ObjectSpace.dump_all(output: File.open("#{dumps}/\#{name}.json", "w")); GC.start }
  dump.("a")
  50_000.times { |index| kept << "kept \#{index}" }
  dump.("b")
  50_000.times { |index| kept << "later \#{index}" }
  dump.("c")
RUBY
env = RailsApp.clean_env.merge("RAILS_ENV" => "production", "SECRET_KEY_BASE" => "x" * 64)
_out, err, status = Open3.capture3(env, Gem.ruby, "-e", code, chdir: RailsApp.path)
raise err unless status.success?

paths = %w[a b c].map { |name| File.join(dumps, "#{name}.json") }
bytes = paths.sum { |path| File.size(path) }
exe = File.expand_path("../exe/mallard", __dir__)
tools = { mallard: [Gem.ruby, exe, "heap", "diff", "--json", *paths], heapy: ["heapy", "diff", *paths] }
timing = tools.transform_values { { seconds: [], peak_kb: [] } }
rounds.times do |round|
  tools.keys.rotate(round % 2).each do |tool|
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    _out, err, status = Open3.capture3("/usr/bin/time", "-f", "PEAK %M", *tools[tool])
    raise "#{tool}: #{err}" unless status.success?

    timing[tool][:seconds] << (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
    timing[tool][:peak_kb] << Integer(err[/PEAK (\d+)/, 1])
  end
end
puts format("three dumps of a Rails app: %.1f MB in all (largest %.1f MB), %d rounds:", bytes / 1e6,
            paths.map { |path| File.size(path) }.max / 1e6, rounds)
timing.each do |tool, figures|
  wall = stats.median(figures[:seconds])
  puts format("  %-8s %.2f s (median), %.0f MB/s; peak RSS %.1f MiB", tool, wall, bytes / 1e6 / wall,
              stats.median(figures[:peak_kb]) / 1024.0)
end
speedup = stats.median(timing[:heapy][:seconds]) / stats.median(timing[:mallard][:seconds])
puts format("  mallard / heapy throughput: %.1f×", speedup)
FileUtils.remove_entry(dumps)
