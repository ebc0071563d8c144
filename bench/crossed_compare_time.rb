# frozen_string_literal: true

# How long a crossed comparison takes on the demo app: 3 configurations (glibc, jemalloc, and a --config of a GC
# variable) × 2 Rubies (Debian's 3.1, the 3.3 built here) × YJIT on and off, 12 rows, each row checked before it
# runs. Reports the wall time, the runs it made (the 12 counted, without the agent, and each row's run with it), the
# load's share of the time, and how many rows ran as asked.
#   ruby bench/crossed_compare_time.rb [REPEAT] [SECONDS]
require_relative "support"
require_relative "../test/support/rubies"
require "json"
require "open3"
require "tmpdir"

repeat = Integer(ARGV.fetch(0, 1))
seconds = Integer(ARGV.fetch(1, 5))
demo = File.expand_path("../examples/demo", __dir__)
rubies = "r31=#{RbConfig.ruby},r33=#{Rubies.path(Rubies::STOCK)}"

Dir.mktmpdir("mallard-crossed") do |dir|
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  out, err, status = Open3.capture3(
    Gem.ruby, File.expand_path("../exe/mallard", __dir__), "compare", demo, "--json", "--out", File.join(dir, "run"),
    "--allocators", "glibc,jemalloc", "--config", "gc-cap=RUBY_GC_HEAP_GROWTH_FACTOR=1.1", "--rubies", rubies,
    "--yjit", "on,off", "--repeat", repeat.to_s, "--duration", seconds.to_s, "--threads", "8", "--concurrency", "16"
  )
  wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  abort err unless status.success?

  rows = JSON.parse(out)["rows"]
  runs = rows.sum { |row| row["runs"].size + row["invalid_runs"].size + row["instrumented_runs"].size }
  puts format("%d rows × %d repeats: %.1f s wall for %d runs (%.1f s a run, %d s of it load: %.0f%%); %d rows " \
              "verified", rows.size, repeat, wall, runs, wall / runs, seconds, 100.0 * seconds * runs / wall,
              rows.count { |row| row["verified"] })
end
