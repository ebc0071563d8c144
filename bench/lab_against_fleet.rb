# frozen_string_literal: true

# The lab's prediction against a simulated rollout (issue 44): `mallard compare APP --allocators glibc,glibc-arena2`
# predicts arena2's change of steady memory; then, ROLLOUTS times, a fleet of Pumas of the same app (GLIBC under
# glibc, ARENA2 under MALLOC_ARENA_MAX=2, all with the exporter, scraped every second by a real Prometheus, loaded by
# wrk at once) is asked `mallard fleet --expect` against that comparison. Prints both changes with their intervals,
# the verdict, and the points between them.
#
# With `like`, the lab follows production as a team would before rolling out: the first fleet is loaded, and the
# comparison is `compare --like '{job="glibc"}'` against its Prometheus (the glibc half, production as it runs now),
# taking its threads and request mix (its rate is read, not taken: bench/README.md); the first rollout is that same
# fleet.
#   ruby bench/lab_against_fleet.rb [ROLLOUTS] [APP] [THREADS] [like]
require_relative "support"
require_relative "../test/support/simulated_fleet"
require "json"
require "open3"
require "tmpdir"

rollouts = Integer(ARGV.fetch(0, 3))
app = File.expand_path(ARGV.fetch(1, File.expand_path("../examples/demo", __dir__)))
threads = Integer(ARGV.fetch(2, 16))
like = ARGV[3] == "like"
glibc = 4
arena2 = 4
# A minute and more, so that each tree's busiest minute (what --like takes as the rate) is one of load.
LOAD_S = 75
EXE = File.expand_path("../exe/mallard", __dir__)

def mallard(*args)
  out, err, status = Open3.capture3(Gem.ruby, EXE, *args)
  abort "mallard #{args.first}: #{err}" unless [0, 1, 65].include?(status.exitstatus)
  JSON.parse(out)
end

def change(pct, interval) = interval ? format("%+.1f%% (%+.1f … %+.1f)", pct, *interval) : format("%+.1f%%", pct)

def compare(app, lab, threads, like_url)
  followed = like_url ? ["--like", '{job="glibc"}', "--prometheus", like_url] : ["--threads", threads.to_s]
  compared = mallard("compare", app, "--allocators", "glibc,glibc-arena2", *followed, "--repeat", "3",
                     "--duration", "10", "--json", "--out", lab)
  versus = compared["configs"].find { |config| config["name"] == "glibc-arena2" }["vs_baseline"]
  took = like_url ? " following the fleet's glibc half: #{compared.dig('like', 'applied')}" : ""
  puts "the lab (one Puma at a time, 3 repeats of 10 s#{took}): arena2 " \
       "#{change(versus['rss_pct'], versus['rss_pct_ci'])} #{compared['metric']}"
end

def expect(fleet, lab, fleet_dir)
  mallard("fleet", "--prometheus", fleet.url, "--a", '{job="glibc"}', "--b", '{job="arena2"}', "--since", "40s",
          "--expect", "#{lab}:glibc-arena2", "--json", "--out", File.join(fleet_dir, "run"))["expectation"]
end

Dir.mktmpdir("mallard-lab-fleet") do |dir|
  lab = File.join(dir, "lab")
  puts "app: #{app}, #{threads} threads"
  compare(app, lab, threads, nil) unless like
  gaps = Array.new(rollouts) do |round|
    fleet_dir = File.join(dir, "fleet-#{round}")
    Dir.mkdir(fleet_dir)
    SimulatedFleet.new(app: app, dir: fleet_dir, glibc: glibc, arena2: arena2, threads: threads).run do |fleet|
      fleet.load(seconds: LOAD_S)
      compare(app, lab, threads, fleet.url) if like && round.zero?
      expected = expect(fleet, lab, fleet_dir)
      gap = expected["observed_pct"] - expected["predicted_pct"]
      differing = expected["differing"].map { |one| "#{one['name']} #{one['lab']} vs #{one['production']}" }
      said = differing.empty? ? "no condition differs" : "differ: #{differing.join(', ')}"
      puts format("  rollout %d (%d glibc, %d arena2 Pumas at once): %s — %s, %+.1f points from the lab's; %s",
                  round + 1, glibc, arena2, change(expected["observed_pct"], expected["observed_ci"]),
                  expected["verdict"], gap, said)
      gap
    end
  end
  puts format("  median gap %+.1f points over %d rollouts", Mallard::Analysis::Statistics.median(gaps), rollouts)
end
