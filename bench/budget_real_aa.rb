# frozen_string_literal: true

# A/A for `mallard budget` on real runs (issue 44: an A/A of two identical builds passes 19 times of 20): the baseline
# measured once (`--update`), then RUNS budget runs of the same build against it, one after another, each its own
# soaks. Prints each run's outcome and each figure's change with its interval, then how many runs failed.
#   ruby bench/budget_real_aa.rb [RUNS] [APP] [DURATION]
require_relative "support"
require "json"
require "open3"
require "tmpdir"

runs = Integer(ARGV.fetch(0, 20))
app = File.expand_path(ARGV.fetch(1, File.join(Bench::APPS, "budgeted")))
duration = ARGV.fetch(2, "3")
exe = File.expand_path("../exe/mallard", __dir__)

Dir.mktmpdir("mallard-budget-aa") do |dir|
  file = File.join(dir, "mallard-budget.json")
  budget = ->(*args) { Open3.capture3(Gem.ruby, exe, "budget", app, "--file", file, "--duration", duration, *args) }
  _, err, status = budget.call("--update", "--out", File.join(dir, "baseline"))
  abort "the baseline: #{err}" unless status.success?

  failed = Array.new(runs) do |run|
    out, err, status = budget.call("--json", "--out", File.join(dir, "run-#{run}"))
    abort "run #{run + 1}: exit #{status.exitstatus}: #{err}" unless [0, 1].include?(status.exitstatus)
    figures = JSON.parse(out)["entries"].flat_map { |entry| entry["figures"] }.map do |figure|
      change = figure["change"] || {}
      ci = change["ci"]
      format("%s %+.1f%%%s", figure["name"], change["pct"].to_f, ci ? format(" (%+.1f … %+.1f)", *ci) : "")
    end
    puts format("run %2d: %s — %s", run + 1, status.success? ? "pass" : "FAIL", figures.join(", "))
    !status.success?
  end
  puts format("%d of %d A/A runs failed the budget", failed.count(true), runs)
end
