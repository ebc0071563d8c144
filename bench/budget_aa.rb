# frozen_string_literal: true

# A/A for `mallard budget` (issue 44: it passes an A/A 19 times of 20), simulated on measured noise. A figure's
# repeats scatter within a session (within: the standard deviation of the logs of one budget run's repeats, pooled),
# and each session sits off the others (between: the spread of the runs' log means beyond what the within noise
# gives them), since the baseline's build and the build checked cannot be interleaved. Both are taken from the budget
# run directories given (their measured values), else from the 7 budget runs of test/fixtures/apps/budgeted made
# here with 3-second soaks (MEASURED). Each A/A draws a baseline session and a build session, 3 repeats each, gated by
# Analysis::BudgetGate at each figure's default allowance (Run::BudgetFile.allowance); it counts single gates that
# fail, sets of 20 gates that fail more than once, and how often a real rise of 15% and 30% is caught. Pure: it
# starts no process.
#   ruby bench/budget_aa.rb [SETS] [BUDGET_RUN_DIR …]
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "mallard"
require "json"

STATS = Mallard::Analysis::Statistics
REPEATS = 3
GATES = 20
# [within, between] log spreads, from `ruby bench/budget_aa.rb 1000 RUN…` on the 7 runs of 2026-11-28.
MEASURED = { "steady_pss_kb" => [0.057, 0.038], "allocations_per_request" => [0.0, 0.0],
             "live_slots" => [0.002, 0.001] }.freeze

def gaussian(random) = Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)

# One session's repeats of a figure at level: the session's offset, then each repeat's own noise.
def session(level, (within, between), random)
  offset = between * gaussian(random)
  Array.new(REPEATS) { level * Math.exp(offset + (within * gaussian(random))) }
end

# @return [Hash] figure name => [within, between] log spreads of the runs' measured values
def measured(dirs)
  values = Hash.new { |hash, key| hash[key] = [] }
  dirs.each do |dir|
    JSON.parse(File.read(File.join(dir, "summary.json")))["entries"].first["figures"].each do |figure|
      values[figure["name"]] << figure["measured"].map { |value| Math.log(value) } if figure["measured"].size >= 2
    end
  end
  values.transform_values { |runs| spreads(runs) }
end

def spreads(runs)
  within = Math.sqrt(runs.sum { |logs| STATS.stddev(logs)**2 } / runs.size)
  means = STATS.stddev(runs.map { |logs| STATS.mean(logs) })
  [within, Math.sqrt([(means**2) - ((within**2) / REPEATS), 0].max)]
end

def over?(name, after, before)
  Mallard::Analysis::BudgetGate.call(after, before, Mallard::Run::BudgetFile.allowance(name)).first == "over"
end

sets = Integer(ARGV.fetch(0, 1000))
noise = ARGV.size > 1 ? measured(ARGV.drop(1)) : MEASURED
random = Random.new(44)
puts "#{sets} sets of #{GATES} A/A gates, #{REPEATS} repeats a side, each in a session of its own"
puts format("%-25s %9s %7s %7s %11s %16s %11s %11s", "figure", "allowance", "within", "between", "gates over",
            "sets over twice", "+15% caught", "+30% caught")
noise.each do |name, spread|
  aa = -> { over?(name, session(1000, spread, random), session(1000, spread, random)) }
  sets_of = Array.new(sets) { Array.new(GATES) { aa.call } }
  gates = sets_of.flatten.count(true)
  twice = sets_of.count { |set| set.count(true) > 1 }
  caught = [1.15, 1.30].map do |rise|
    Array.new(sets) { over?(name, session(1000 * rise, spread, random), session(1000, spread, random)) }.count(true)
  end
  puts format("%-25s %8g%% %7.3f %7.3f %5d %4.1f%% %9d %4.1f%% %10.1f%% %10.1f%%", name,
              Mallard::Run::BudgetFile.allowance(name), *spread, gates, gates * 100.0 / (sets * GATES), twice,
              twice * 100.0 / sets, *caught.map { |n| n * 100.0 / sets })
end
