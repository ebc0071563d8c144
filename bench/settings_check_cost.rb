# frozen_string_literal: true

# What checking a configuration's settings costs before a comparison's rows run (Probe::SettingsCheck: the app's
# own Ruby started with -W and the row's RUBY_GC_* variables or MALLOC_CONF), against the bare start of the same
# Ruby: each timed ROUNDS times, interleaved (bare, checked, checked, bare, …) so drift hits both alike, on
# Debian's 3.1 and the 3.3 built here. A row without such settings starts nothing.
#   ruby bench/settings_check_cost.rb [ROUNDS]
require_relative "support"
require_relative "../test/support/rubies"

rounds = Integer(ARGV.fetch(0, 30))
stats = Mallard::Analysis::Statistics
settings = Mallard::Analysis::GcCandidates::FREE_SLOTS.merge("RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1")

def seconds
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

{ "3.1" => RbConfig.ruby, "3.3" => Rubies.path(Rubies::STOCK) }.each do |name, ruby|
  times = { bare: [], checked: [] }
  rounds.times do |round|
    %i[bare checked].rotate(round % 2).each do |variant|
      times[variant] << seconds do
        if variant == :bare
          system(Mallard::Probe::SettingsCheck::CLEAN, ruby, "--disable-gems", "-e", "", exception: true)
        else
          Mallard::Probe::SettingsCheck.call(ruby: ruby, settings: settings, malloc: "glibc")
        end
      end
    end
  end
  ratio = times[:checked].zip(times[:bare]).map { |checked, bare| Math.log(checked / bare) }
  low, high = stats.mean_ci(ratio, level: 0.95).map { |bound| Math.exp(bound) }
  quartiles = [25, 75].map { |percent| stats.percentile(times[:checked], percent) * 1000 }
  puts format("Ruby %s: a check %.1f ms median (IQR %.1f … %.1f), a bare start %.1f ms; ratio %.2f× " \
              "(95%% CI %.2f … %.2f), %d rounds", name, stats.median(times[:checked]) * 1000, *quartiles,
              stats.median(times[:bare]) * 1000, Math.exp(stats.mean(ratio)), low, high, rounds)
end
