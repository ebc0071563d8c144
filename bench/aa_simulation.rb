# frozen_string_literal: true

# How often compare's statistics call two identical configurations different (A/A), and how often
# they find a real 20% difference, with 3 repeats per configuration and 3% log-normal noise: Welch's
# t on the logarithms (what compare uses) against a percentile bootstrap of the ratio of medians.
#   ruby bench/aa_simulation.rb [SIMULATIONS]
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "mallard"

STATS = Mallard::Analysis::Statistics
NOISE = 0.03
REPEATS = 3

def gaussian(random)
  Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)
end

def repeats(level, random)
  Array.new(REPEATS) { level * Math.exp(NOISE * gaussian(random)) }
end

def welch_different?(after, before)
  low, high = STATS.welch_ci(after.map { |v| Math.log(v) }, before.map { |v| Math.log(v) })
  !(low <= 0 && high >= 0)
end

def bootstrap_different?(after, before, random)
  ratios = Array.new(1000) do
    STATS.median(Array.new(REPEATS) { after.sample(random: random) }) /
      STATS.median(Array.new(REPEATS) { before.sample(random: random) })
  end
  !(STATS.percentile(ratios, 2.5) <= 1 && STATS.percentile(ratios, 97.5) >= 1)
end

simulations = Integer(ARGV.fetch(0, 1000))
counts = Hash.new(0)
simulations.times do |seed|
  random = Random.new(seed)
  baseline = repeats(100_000, random)
  twin = repeats(100_000, random)
  smaller = repeats(80_000, random)
  counts[:welch] += 1 if welch_different?(twin, baseline)
  counts[:bootstrap] += 1 if bootstrap_different?(twin, baseline, Random.new(seed + simulations))
  counts[:power] += 1 if welch_different?(smaller, baseline)
end
share = ->(key) { format("%.1f%%", 100.0 * counts[key] / simulations) }
puts "#{simulations} simulations, #{REPEATS} repeats each, #{(NOISE * 100).round}% noise"
puts "  A/A called different: Welch on logs #{share[:welch]}, percentile bootstrap #{share[:bootstrap]}"
puts "  a real 20% difference found (Welch on logs): #{share[:power]}"
