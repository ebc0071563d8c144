# frozen_string_literal: true

# How often compare's statistics call two identical configurations different (A/A), and how often they find
# real 5% and 20% differences, with 3 repeats per configuration and log-normal noise of 1% and 3%. Three rules:
# Welch's t interval on the logarithms lying beyond ±1% (what compare and diff use, Analysis::Significance),
# the same interval merely excluding zero, and a percentile bootstrap of the ratio of medians excluding 1.
#   ruby bench/aa_simulation.rb [SIMULATIONS]
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "mallard"

STATS = Mallard::Analysis::Statistics
REPEATS = 3
NOISES = [0.01, 0.03].freeze

def gaussian(random)
  Math.sqrt(-2 * Math.log(1 - random.rand)) * Math.cos(2 * Math::PI * random.rand)
end

def repeats(level, noise, random)
  Array.new(REPEATS) { level * Math.exp(noise * gaussian(random)) }
end

# The change's interval in %, as Comparison computes it.
def welch_pct(after, before)
  STATS.welch_ci(after.map { |v| Math.log(v) }, before.map { |v| Math.log(v) }).map { |b| (Math.exp(b) - 1) * 100 }
end

def band_different?(after, before)
  Mallard::Analysis::Significance.significant?(welch_pct(after, before))
end

def zero_different?(after, before)
  low, high = welch_pct(after, before)
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
puts "#{simulations} simulations per noise level, #{REPEATS} repeats per configuration"
NOISES.each do |noise|
  counts = Hash.new(0)
  simulations.times do |seed|
    random = Random.new(seed)
    baseline = repeats(100_000, noise, random)
    twin = repeats(100_000, noise, random)
    counts[:band] += 1 if band_different?(twin, baseline)
    counts[:zero] += 1 if zero_different?(twin, baseline)
    counts[:bootstrap] += 1 if bootstrap_different?(twin, baseline, Random.new(seed + simulations))
    smaller = repeats(95_000, noise, random)
    counts[:power5] += 1 if band_different?(smaller, baseline)
    counts[:zero5] += 1 if zero_different?(smaller, baseline)
    counts[:power20] += 1 if band_different?(repeats(80_000, noise, random), baseline)
  end
  share = ->(key) { format("%.1f%%", 100.0 * counts[key] / simulations) }
  puts "#{(noise * 100).round}% noise"
  puts "  A/A called different: beyond ±1% #{share[:band]}, excluding zero #{share[:zero]}, " \
       "percentile bootstrap #{share[:bootstrap]}"
  puts "  real differences found (beyond ±1%): 5% #{share[:power5]} (excluding zero: #{share[:zero5]}), " \
       "20% #{share[:power20]}"
end
