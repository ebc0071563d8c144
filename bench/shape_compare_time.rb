# frozen_string_literal: true

# How long a comparison of four Puma shapes takes on the demo app (issue 42): each row's tree started, checked from
# outside and measured at one offered load. Reports the wall time, the runs made (the counted ones and each row's run
# with the agent), the load's share of the time, and how many rows ran as asked.
#   ruby bench/shape_compare_time.rb [SHAPES] [REPEAT] [SECONDS] [RATE]
require_relative "support"
require "json"
require "open3"
require "tmpdir"

shapes = ARGV.fetch(0, "1x5,2x5,2x5-nopreload,2x5-refork=500")
repeat = Integer(ARGV.fetch(1, 2))
seconds = Integer(ARGV.fetch(2, 5))
rate = Integer(ARGV.fetch(3, 100))
demo = File.expand_path("../examples/demo", __dir__)

Dir.mktmpdir("mallard-shapes") do |dir|
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  out, err, status = Open3.capture3(
    Gem.ruby, File.expand_path("../exe/mallard", __dir__), "compare", demo, "--json", "--out", File.join(dir, "run"),
    "--allocators", "glibc", "--shape", shapes, "--repeat", repeat.to_s, "--duration", seconds.to_s,
    "--rate", rate.to_s
  )
  wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  abort err unless status.success?

  rows = JSON.parse(out)["rows"]
  runs = rows.sum { |row| row["runs"].size + row["invalid_runs"].size + row["instrumented_runs"].size }
  puts format("%d shapes (%s) × %d repeats at %d req/s: %.1f s wall for %d runs (%.1f s a run, %d s of it load: " \
              "%.0f%%); %d rows verified", rows.size, shapes, repeat, rate, wall, runs, wall / runs, seconds,
              100.0 * seconds * runs / wall, rows.count { |row| row["verified"] })
  rows.each do |row|
    figures = row["runs"].map { |run| format("%.1f", run["steady_pss_kb"].to_f / 1024) }.join(", ")
    puts format("  %-24s summed PSS %s MiB", row["name"], figures)
  end
end
