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
#
# With `crowded`, the lab's comparison runs as crowded as one of the fleet's Pumas: `--neighbours 7`, the fleet's other
# Pumas beside the one measured, each loaded alike, all at the fleet's 32 connections a Puma, for as long as the
# fleet's load (LOAD_S).
#
# Then, CANARIES times, a canary on a configuration the lab predicted no saving for: the fleet all glibc, its second
# half (4 Pumas) asked against the first with the lab's arena2 prediction, which it should fall short of, naming the
# ledger's part furthest from the lab's.
#   ruby bench/lab_against_fleet.rb [ROLLOUTS] [APP] [THREADS] [like|crowded] [CANARIES]
require_relative "support"
require_relative "../test/support/simulated_fleet"
require "fileutils"
require "json"
require "open3"
require "tmpdir"

rollouts = Integer(ARGV.fetch(0, 3))
app = File.expand_path(ARGV.fetch(1, File.expand_path("../examples/demo", __dir__)))
threads = Integer(ARGV.fetch(2, 16))
like = ARGV[3] == "like"
crowded = ARGV[3] == "crowded"
canaries = Integer(ARGV.fetch(4, 0))
glibc = 4
arena2 = 4
# A minute and more, so that each tree's busiest minute (what --like takes as the rate) is one of load.
LOAD_S = 75
EXE = File.expand_path("../exe/mallard", __dir__)
# A crowded Puma serves an eighth of what one alone does in the same seconds, and glibc's heap follows the requests
# served: the crowded lab loads as long as the fleet's Pumas had been loaded when they are measured.
CROWDED_LAB_S = LOAD_S

def mallard(*args)
  out, err, status = Open3.capture3(Gem.ruby, EXE, *args)
  abort "mallard #{args.first}: #{err}" unless [0, 1, 65].include?(status.exitstatus)
  JSON.parse(out)
end

def change(pct, interval) = interval ? format("%+.1f%% (%+.1f … %+.1f)", pct, *interval) : format("%+.1f%%", pct)

def compare(app, lab, threads, like_url, beside: nil)
  more = beside ? ["--neighbours", beside.to_s, "--concurrency", "32"] : []
  followed = like_url ? ["--like", '{job="glibc"}', "--prometheus", like_url] : ["--threads", threads.to_s]
  seconds = beside ? CROWDED_LAB_S : 10
  compared = mallard("compare", app, "--allocators", "glibc,glibc-arena2", *followed, "--repeat", "3",
                     "--duration", seconds.to_s, *more, "--json", "--out", lab)
  versus = compared["configs"].find { |config| config["name"] == "glibc-arena2" }["vs_baseline"]
  took = like_url ? " following the fleet's glibc half: #{compared.dig('like', 'applied')}" : ""
  took += " beside #{beside} copies loaded alike (--neighbours), at 32 connections" if beside
  puts "the lab (one Puma measured at a time, 3 repeats of #{seconds} s#{took}): arena2 " \
       "#{change(versus['rss_pct'], versus['rss_pct_ci'])} #{compared['metric']}"
end

# The arena2 half against the glibc one; a canary's, the glibc halves against each other.
ROLLED_OUT = ['{job="glibc"}', '{job="arena2"}'].freeze
CANARY = ['{job="glibc",half="1"}', '{job="glibc",half="2"}'].freeze

def expect(fleet, lab, fleet_dir, sides)
  mallard("fleet", "--prometheus", fleet.url, "--a", sides.first, "--b", sides.last, "--since", "40s",
          "--expect", "#{lab}:glibc-arena2", "--json", "--out", File.join(fleet_dir, "run"))["expectation"]
end

# One rollout: a fleet, loaded, asked against the lab; its gap in points. A Puma of the fleet that did not boot: that
# rollout again, said.
def rollout(round, dir, lab, settings, sides = ROLLED_OUT)
  fleet_dir = File.join(dir, "fleet-#{sides.first.include?('half') ? 'canary-' : ''}#{round}")
  attempts = 0
  begin
    attempts += 1
    FileUtils.rm_rf(fleet_dir)
    Dir.mkdir(fleet_dir)
    SimulatedFleet.new(dir: fleet_dir, **settings).run do |fleet|
      fleet.load(seconds: LOAD_S)
      yield fleet if block_given?
      said(round, settings, expect(fleet, lab, fleet_dir, sides))
    end
  rescue Mallard::SubjectFailed => e
    puts "  rollout #{round + 1}: #{e.message}; started again"
    retry if attempts < 3
    raise
  end
end

def said(round, settings, expected)
  gap = expected["observed_pct"] - expected["predicted_pct"]
  differing = expected["differing"].map { |one| "#{one['name']} #{one['lab']} vs #{one['production']}" }
  differing = differing.empty? ? "no condition differs" : "differ: #{differing.join(', ')}"
  served = [expected.dig("prediction", "conditions", "served"), expected.dig("conditions", "served")]
  puts format("  rollout %d (%d glibc, %d arena2 Pumas at once): %s — %s, %+.1f points from the lab's%s; requests a " \
              "tree served %s in the lab, %s here; %s",
              round + 1, settings[:glibc], settings[:arena2], change(expected["observed_pct"], expected["observed_ci"]),
              expected["verdict"], gap, furthest(expected), *served, differing)
  gap
end

# Where the fleet disagrees: the ledger's part furthest from the lab's change for it, each side's change a process.
def furthest(expected)
  part = expected["parts"].find { |one| one["part"] == expected["differing_part"] }
  return "" unless part

  format(", furthest in %s (%+.1f MiB a process predicted, %+.1f observed)", part["part"],
         part["predicted_kb"] / 1024.0, part["observed_kb"] / 1024.0)
end

Dir.mktmpdir("mallard-lab-fleet") do |dir|
  lab = File.join(dir, "lab")
  puts "app: #{app}, #{threads} threads"
  compare(app, lab, threads, nil, beside: (glibc + arena2 - 1 if crowded)) unless like
  settings = { app: app, glibc: glibc, arena2: arena2, threads: threads }
  gaps = Array.new(rollouts) do |round|
    rollout(round, dir, lab, settings) { |fleet| compare(app, lab, threads, fleet.url) if like && round.zero? }
  end
  puts format("  median gap %+.1f points over %d rollouts", Mallard::Analysis::Statistics.median(gaps), rollouts)
  puts "canaries on glibc, which the lab predicted no saving for, against its arena2 prediction:" if canaries.positive?
  canaries.times { |round| rollout(round, dir, lab, settings.merge(glibc: glibc + arena2, arena2: 0), CANARY) }
end
