# frozen_string_literal: true

# The lab's prediction against a simulated rollout (issue 44): `mallard compare APP --allocators glibc,glibc-arena2`
# predicts arena2's change of steady memory; then, ROLLOUTS times, a fleet of Pumas of the same app (GLIBC under
# glibc, ARENA2 under MALLOC_ARENA_MAX=2, all with the exporter, scraped every second by a real Prometheus, loaded by
# wrk at once) is asked `mallard fleet --expect` against that comparison. Prints both changes with their intervals,
# the verdict, and the points between them.
#   ruby bench/lab_against_fleet.rb [ROLLOUTS] [APP] [THREADS]
require_relative "support"
require_relative "../test/support/simulated_fleet"
require "json"
require "open3"
require "tmpdir"

rollouts = Integer(ARGV.fetch(0, 3))
app = File.expand_path(ARGV.fetch(1, File.expand_path("../examples/demo", __dir__)))
threads = Integer(ARGV.fetch(2, 16))
glibc = 4
arena2 = 4
exe = File.expand_path("../exe/mallard", __dir__)

def mallard(exe, *args)
  out, err, status = Open3.capture3(Gem.ruby, exe, *args)
  abort "mallard #{args.first}: #{err}" unless [0, 1, 65].include?(status.exitstatus)
  JSON.parse(out)
end

def change(pct, interval) = interval ? format("%+.1f%% (%+.1f … %+.1f)", pct, *interval) : format("%+.1f%%", pct)

Dir.mktmpdir("mallard-lab-fleet") do |dir|
  lab = File.join(dir, "lab")
  compared = mallard(exe, "compare", app, "--allocators", "glibc,glibc-arena2", "--threads", threads.to_s, "--repeat",
                     "3", "--duration", "10", "--json", "--out", lab)
  versus = compared["configs"].find { |config| config["name"] == "glibc-arena2" }["vs_baseline"]
  puts "app: #{app}, #{threads} threads; the lab (one Puma at a time, 3 repeats of 10 s): arena2 " \
       "#{change(versus['rss_pct'], versus['rss_pct_ci'])} #{compared['metric']}"
  gaps = Array.new(rollouts) do |round|
    fleet_dir = File.join(dir, "fleet-#{round}")
    Dir.mkdir(fleet_dir)
    SimulatedFleet.new(app: app, dir: fleet_dir, glibc: glibc, arena2: arena2, threads: threads).run do |fleet|
      fleet.load(seconds: 30)
      expected = mallard(exe, "fleet", "--prometheus", fleet.url, "--a", '{job="glibc"}', "--b", '{job="arena2"}',
                         "--since", "20s", "--expect", "#{lab}:glibc-arena2", "--json",
                         "--out", File.join(fleet_dir, "run"))["expectation"]
      gap = expected["observed_pct"] - expected["predicted_pct"]
      puts format("  rollout %d (%d glibc, %d arena2 Pumas at once): %s — %s, %+.1f points from the lab's",
                  round + 1, glibc, arena2, change(expected["observed_pct"], expected["observed_ci"]),
                  expected["verdict"], gap)
      gap
    end
  end
  puts format("  median gap %+.1f points over %d rollouts", Mallard::Analysis::Statistics.median(gaps), rollouts)
end
