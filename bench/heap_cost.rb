# frozen_string_literal: true

# What `mallard heap` costs and how fast it reads, in three parts.
#
# 1. Allocation tracing: throughput of the same app with mallard's agent, without and with MALLARD_HEAP_DIR (which
#    turns ObjectSpace.trace_object_allocations_start on for the whole run; no dump is requested here), wrk -c 10
#    in interleaved rounds.
# 2. Reading dumps: three dumps of one process (a Rails app booted with tracing on, keeping a known amount between
#    dumps) analysed by `mallard heap diff A B C` and by heapy's `heapy diff A B C`, interleaved; wall time and
#    peak RSS (GNU time's %M) of each process, and MB/s as the three dumps' bytes over the wall time.
# 3. Against dump size (SIZES, MB of dump C; default 100,400,1000): a Ruby with tracing on keeps strings until its
#    dumps reach each size (A, then as much again kept before B and after it); each dump is timed as written
#    (GC.start, dump_all) with the process's RSS then; then `mallard heap diff` and `heapy diff` on the same three
#    dumps, wall time, MB/s and peak RSS, and mallard's own streaming pass (analysis.mb_per_s). Needs about three
#    times the largest size free in TMPDIR, and RAM for heapy, which holds whole dumps.
#   ruby bench/heap_cost.rb [ROUNDS] [SECONDS] [APP] [SIZES]
#   (a check that it runs, in seconds: ruby bench/heap_cost.rb 1 1 stable 2,4)
require_relative "support"
require "json"
require "open3"
require_relative "../test/support/rails_app"

rounds = Integer(ARGV.fetch(0, 5))
seconds = Integer(ARGV.fetch(1, 5))
app = ARGV.fetch(2, "stable")
sizes = ARGV.fetch(3, "100,400,1000").split(",").map { |size| Float(size) }
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

# Part 3: three dumps whose last is about `megabytes` MB, each timed as it is written.
SIZED_DUMPS = <<~'RUBY'
  require "objspace"
  require "json"
  ObjectSpace.trace_object_allocations_start
  target, dir = Float(ARGV[0]) * 1e6, ARGV[1]
  kept = []
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  rss = -> { File.read("/proc/self/status")[/VmRSS:\s+(\d+)/, 1].to_i }
  dump = lambda do |name|
    GC.start
    started = clock.call
    File.open(File.join(dir, "#{name}.json"), "w") { |file| ObjectSpace.dump_all(output: file) }
    taken = { "name" => name, "seconds" => clock.call - started, "rss_kb" => rss.call,
              "bytes" => File.size(File.join(dir, "#{name}.json")) }
    GC.start
    taken
  end
  grow = ->(count) { count.times { |index| kept << "kept string #{index}" } }
  first = dump.("probe")
  grow.(20_000)
  per_object = (dump.("probe")["bytes"] - first["bytes"]) / 20_000.0
  each = [((target - first["bytes"]) / per_object / 2).round, 1].max
  taken = [dump.("a")]
  grow.(each)
  taken << dump.("b")
  grow.(each)
  taken << dump.("c")
  File.delete(File.join(dir, "probe.json"))
  puts JSON.generate(taken)
RUBY

def timed_tool(argv)
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  out, err, status = Open3.capture3("/usr/bin/time", "-f", "PEAK %M", *argv)
  raise "#{argv.first(4).join(' ')}: #{err}" unless status.success?

  [Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, Integer(err[/PEAK (\d+)/, 1]), out]
end

puts "dump time and reading speed against dump size (#{rounds} rounds of each reader):"
sizes.each do |megabytes|
  Dir.mktmpdir("mallard-bench-sized") do |dir|
    out, err, status = Open3.capture3(Gem.ruby, "-e", SIZED_DUMPS, megabytes.to_s, dir)
    raise err unless status.success?

    taken = JSON.parse(out)
    paths = taken.map { |dump| File.join(dir, "#{dump['name']}.json") }
    total = taken.sum { |dump| dump["bytes"] }
    written = taken.map do |dump|
      format("%s %.0f MB in %.2f s (%.0f MB/s; RSS %.0f MiB)", dump["name"].upcase, dump["bytes"] / 1e6,
             dump["seconds"], dump["bytes"] / 1e6 / dump["seconds"], dump["rss_kb"] / 1024.0)
    end
    puts "  ~#{megabytes.round} MB: #{written.join('; ')}"
    figures = { mallard: [Gem.ruby, exe, "heap", "diff", "--json", *paths], heapy: ["heapy", "diff", *paths] }
    results = figures.transform_values { [] }
    rounds.times do |round|
      figures.keys.rotate(round % 2).each { |tool| results[tool] << timed_tool(figures[tool]) }
    end
    scan = stats.median(results[:mallard].map { |(_, _, json)| JSON.parse(json).dig("analysis", "mb_per_s") })
    results.each do |tool, runs|
      wall = stats.median(runs.map(&:first))
      extra = tool == :mallard ? format("; its streaming pass %.0f MB/s", scan) : ""
      peak = stats.median(runs.map { |run| run[1] }) / 1024.0
      puts format("    %-8s %.2f s, %.0f MB/s over the three dumps, peak RSS %.1f MiB%s", tool, wall,
                  total / 1e6 / wall, peak, extra)
    end
  end
end
