# frozen_string_literal: true

# How long `mallard soak --until-decided` takes to decide, app by app, and what its looks cost mallard: each app is
# soaked once through the real CLI (--duration MIN, --until-decided BUDGET, wrk -c 4), one after another. Per app:
# the load's seconds, when it decided (or that the budget ran out, and what stayed undecided), the verdict, how the
# live set was judged, the agent's full GCs, and the CPU time of mallard's looks at the run so far.
# APPS: fixtures' names, directories, or "rails" (the generated Rails 6.1 app with a page of 3,000 rows).
#   ruby bench/until_decided_time.rb [BUDGET] [MIN] [APPS...]
require_relative "support"
require "json"
require "open3"

budget = Integer(ARGV.fetch(0, 300))
minimum = Integer(ARGV.fetch(1, 20))
apps = ARGV.drop(2)
apps = %w[stable leaky fragmenting rails] if apps.empty?
exe = File.expand_path("../exe/mallard", __dir__)

puts "--until-decided #{budget} --duration #{minimum}, wrk -c 4, 5 Puma threads, one app at a time"
apps.each do |name|
  app, path, env = Bench.app_of(name)
  Dir.mktmpdir("mallard-bench-decide") do |dir|
    args = ["soak", app, "--json", "--concurrency", "4", "--duration", minimum.to_s, "--until-decided", budget.to_s,
            "--out", File.join(dir, "run"), *(["--path", "/#{path}"] unless path.empty?)]
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    out, err, status = Open3.capture3(env, Gem.ruby, exe, *args)
    wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    abort "bench: #{name}: exit #{status.exitstatus}: #{err.lines.last(3).join}" unless status.exitstatus.zero?

    summary = JSON.parse(out)
    ending = summary.fetch("until_decided")
    live = summary["live_set"] || {}
    decided = ending["decided_s"] && "decided at #{ending['decided_s']} s"
    puts format("  %-12s %s; load %.0f s, wall %.0f s; %s (memory %s, live set %s on %s); %d looks, %.2f s of " \
                "mallard's CPU; full GCs by the agent: %s", name,
                decided || "budget spent: #{ending['undecided'].join(', ')}", summary.dig("load", "duration_s").to_f,
                wall, summary.dig("verdict", "overall"), summary.dig("verdict", "memory"), live["verdict"],
                live["measure"].to_s[/after each major GC|after every GC|old objects/] || "—", ending["looks"],
                ending["look_cpu_s"].to_f,
                live["forced_gcs"] ? "#{live['forced_gcs']} (median #{live['forced_gc_ms']} ms)" : "none")
  end
end
