# frozen_string_literal: true

# `mallard boot` beside derailed_benchmarks' `bundle:mem` on the same Rails app: wall time, the spread of each
# one's total, and what each total covers, against the RSS of the same app booted in a plain Ruby after a GC.
#
# The app is made by `rails new` (test/support/rails_app.rb: Debian's Rails 6.1, bundled offline); derailed runs
# from a copy whose Gemfile adds it (Debian's ruby-derailed-benchmarks). Rounds interleave the tools:
# derailed once, mallard once (--repeat 5, its repeats two at a time on this 2-core machine), then a plain boot.
#   ruby bench/boot_vs_derailed.rb [ROUNDS] [--objects]
require_relative "support"
require "json"
require "open3"
require_relative "../test/support/rails_app"

rounds = Integer(ARGV.fetch(0, 5))
objects = ARGV.include?("--objects")
stats = Mallard::Analysis::Statistics
app = RailsApp.path
derailed_app = File.join(File.dirname(app), "derailed")
FileUtils.cp_r(app, derailed_app)
File.write(File.join(derailed_app, "Gemfile"), "gem \"derailed_benchmarks\"\n", mode: "a")
RailsApp.run(derailed_app, "bundle", "install", "--local")
exe = File.expand_path("../exe/mallard", __dir__)
env = RailsApp.clean_env.merge("RAILS_ENV" => "production", "SECRET_KEY_BASE" => "x" * 64)
clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
timed = lambda do |*command, chdir:, extra: {}|
  started = clock.call
  out, err, status = Open3.capture3(env.merge(extra), *command, chdir: chdir)
  raise "#{command.join(' ')} failed:\n#{err}" unless status.success?

  [clock.call - started, out]
end

results = Hash.new { |hash, key| hash[key] = [] }
rounds.times do |round|
  gemfile = { "BUNDLE_GEMFILE" => File.join(derailed_app, "Gemfile") }
  seconds, out = timed.call("bundle", "exec", "derailed", "bundle:mem", chdir: derailed_app, extra: gemfile)
  results[:derailed_s] << seconds
  results[:derailed_top_kb] << (Float(out[/^TOP: ([\d.]+) MiB/, 1]) * 1024)

  out_dir = File.join(Dir.tmpdir, "mallard-bench-boot-#{Process.pid}-#{round}")
  seconds, out = timed.call(Gem.ruby, exe, "boot", app, "--json", "--out", out_dir, *("--objects" if objects),
                            chdir: app)
  summary = JSON.parse(out)
  results[:mallard_s] << seconds
  results[:mallard_total_kb] << summary.dig("total", "rss_kb")
  results[:mallard_growth_kb] << summary.dig("total", "growth_kb")
  results[:mallard_repeat_values] << summary.dig("total", "values")
  FileUtils.rm_rf(out_dir)

  _seconds, out = timed.call(Gem.ruby, "-e", 'require "./config/environment"; GC.start; ' \
                                             'print File.read("/proc/self/status")[/VmRSS:\s*(\d+)/, 1]', chdir: app)
  results[:plain_kb] << Integer(out)
  warn format("round %d: derailed %.2f s TOP %.1f MiB · mallard %.2f s total %.1f MiB · plain boot %.1f MiB",
              round + 1, results[:derailed_s].last, results[:derailed_top_kb].last / 1024,
              results[:mallard_s].last, results[:mallard_total_kb].last / 1024, results[:plain_kb].last / 1024.0)
end

spread = ->(values) { 100.0 * (values.max - values.min) / stats.median(values) }
mib = ->(kb) { format("%.1f MiB", kb / 1024.0) }
plain = stats.median(results[:plain_kb])
within = results[:mallard_repeat_values].map { |values| spread.call(values) }
puts "#{rounds} rounds, Rails #{`rails --version`.strip} app, objects pass #{objects ? 'on' : 'off'}"
puts format("derailed bundle:mem: %.2f s a run (median); TOP %s, spread over runs %.1f%%; TOP / plain boot %.2f",
            stats.median(results[:derailed_s]), mib.call(stats.median(results[:derailed_top_kb])),
            spread.call(results[:derailed_top_kb]), stats.median(results[:derailed_top_kb]) / plain)
puts format("mallard boot --repeat 5: %.2f s a run (median), %.2f× one derailed run; total %s, spread over runs " \
            "%.1f%% (within a run's repeats: median %.1f%%); total / plain boot %.3f; growth %s",
            stats.median(results[:mallard_s]), stats.median(results[:mallard_s]) / stats.median(results[:derailed_s]),
            mib.call(stats.median(results[:mallard_total_kb])), spread.call(results[:mallard_total_kb]),
            stats.median(within), stats.median(results[:mallard_total_kb]) / plain,
            mib.call(stats.median(results[:mallard_growth_kb])))
puts format("plain boot (ruby -e 'require \"./config/environment\"', GC, VmRSS): %s, spread %.1f%%", mib.call(plain),
            spread.call(results[:plain_kb]))
