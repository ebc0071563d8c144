# frozen_string_literal: true

# What mallard's agent costs an app, measured so that the machine's drift and Ruby's heap lottery cancel out.
#
# Drift: the same Puma app with and without the agent run at the same time, both servers on one CPU and both wrks on
# the other, the CPUs swapped every round. This KVM guest changes speed by tens of percent within minutes (two 8 s
# runs of the same app a minute apart: 0.498 and 0.572 ms of CPU a request) and its two CPUs drift apart, which
# one-after-the-other rounds (bench/agent_overhead.rb) cannot tell from the agent's cost. Sharing one CPU, the two
# servers see the same speed at every moment: an A/A run's CPU ratio came out 1.001 (0.999 … 1.003), where giving
# each server and its wrk a CPU of its own (MALLARD_BENCH_LAYOUT=split, the layout before 2026-11-26) gave 0.960
# (0.918 … 1.078) and runs of one quantity that disagreed (bench/README.md).
#
# The heap lottery: Ruby 3.1's heap settles at a size that depends on what was allocated at boot, and an
# allocation-bound app's GC rate with it (bench/apps/boot_jitter.rb): loading any library first moves it, the agent
# included. Each round both servers load the same random boot jitter (0 to 20,000 temporary strings) before
# anything else, so the rounds sample the lottery alike for both.
#
# Sharing: each server in a CPU control group of its own (bench/cpu_groups.rb), so the two share their CPU half and
# half, as two containers would. Left to Linux's sharing between threads, the demo app's server with the agent got
# 2–5% less CPU time than its neighbour, and its req/s fell 4.6–8.4% where its CPU per request rose 2.6–4.2%. In
# groups an A/A came out 1.001 (0.990 … 1.008) in req/s, and a planted cost ("planted", below) moved req/s by what it
# moved CPU per request. MALLARD_BENCH_GROUPS=off: sharing between threads, as before 2026-11-27 (and where groups
# cannot be made: not root, no cpu controller).
#
# Per round: req/s from each wrk, CPU per request from each server's /proc/PID/stat, RSS as the load ends from its
# smaps_rollup, and major GCs per 1,000 requests and GC time per request from each server's GC.stat over the counted
# load (bench/apps/gc_counts.rb); the ratio with/without per block of two rounds (below), its median and bootstrap 95%
# interval over blocks. Last, how much of the agent's extra CPU per request is extra GC time: the two differences
# per block, in microseconds.
#   ruby bench/agent_paired.rb [ROUNDS] [SECONDS] [APP] [VARIANT] [JITTER_MAX]
# VARIANT: "full" (as mallard runs it), "lean" (per-GC timeline and ledger off), "timeline" (ledger off), "ledger"
# (per-GC timeline off), "loaded" (the agent's rackup and middleware, not recording), "planted" ("loaded", and
# MALLARD_BENCH_BURN_US of CPU, 15 by default, burnt per request by the app bench/apps/burn: a known cost for the
# bench to find, against MALLARD_BENCH_BASELINE=loaded). JITTER_MAX 0: no jitter (one
# draw of the lottery per variant, as a plain A/B); "bare": the servers load none of the bench's files (no jitter, and
# no GC counts, so no majors or GC time). MALLARD_BENCH_BASELINE=VARIANT: the "without" server runs the agent too, as
# that variant, so the ratio is one part's cost (e.g. "ledger" against "lean": the ledger's).
require_relative "support"
require_relative "cpu_groups"

rounds = Integer(ARGV.fetch(0, 10))
seconds = Integer(ARGV.fetch(1, 5))
variant = ARGV.fetch(3, "full")
baseline = ENV.fetch("MALLARD_BENCH_BASELINE", "")
baseline = nil if baseline.empty?
BARE = ARGV[4] == "bare"
jitter_max = BARE ? 0 : Integer(ARGV.fetch(4, 20_000))
layout_name = ENV.fetch("MALLARD_BENCH_LAYOUT", "shared")
shared = layout_name == "shared"
groups_dir, no_groups = ENV["MALLARD_BENCH_GROUPS"] == "off" ? [nil, "MALLARD_BENCH_GROUPS=off"] : Bench::CpuGroups.root
at_exit { Bench::CpuGroups.remove(groups_dir, %i[without with]) } if groups_dir
VARIANT_ENV = { "full" => {}, "lean" => { "MALLARD_GC_EVENTS" => "off", "MALLARD_LEDGER_INTERVAL" => "off" },
                "timeline" => { "MALLARD_LEDGER_INTERVAL" => "off" }, "ledger" => { "MALLARD_GC_EVENTS" => "off" },
                "loaded" => { "MALLARD_AGENT_OUT" => "" },
                "planted" => { "MALLARD_AGENT_OUT" => "",
                               "BENCH_BURN_US" => ENV.fetch("MALLARD_BENCH_BURN_US", "15") } }.freeze
# Before any server starts: a name the bench does not know would otherwise fail inside the first round.
unknown = ([variant, baseline].compact - VARIANT_ENV.keys).map { |name| "variant #{name.inspect}" }
unknown << "MALLARD_BENCH_LAYOUT #{layout_name.inspect}" unless %w[shared split].include?(layout_name)
unless unknown.empty?
  warn "agent_paired: unknown #{unknown.join(', ')} (variants: #{VARIANT_ENV.keys.join(', ')}; layouts: shared, split)"
  exit 64
end
app, path, extra_env = Bench.app_of(ARGV.fetch(2, "examples/demo"))
# MALLARD_BENCH_RUBY=PATH: both servers on another Ruby (its puma and gems), as `--ruby` runs an app.
if (ruby = ENV.fetch("MALLARD_BENCH_RUBY", nil))
  extra_env = extra_env.merge(Mallard::Target::SubjectRuby.resolve(ruby).subject_env)
end
GC_COUNTS = File.expand_path("apps/gc_counts.rb", __dir__)
LIB = File.expand_path("../lib", __dir__)
# MALLARD_BENCH_BASELINE_LIB=DIR: the "without" server's agent from another checkout's lib (one agent against another).
BASELINE_LIB = ENV.fetch("MALLARD_BENCH_BASELINE_LIB", LIB)
figures = %i[rps cpu rss majors gc_ms].to_h { |figure| [figure, { without: [], with: [] }] }

# Each server's environment: the app's, the jitter and the GC counts first, and the agent's variant for "with" (and
# the baseline's for "without", when there is one).
def environments(extra_env, variant, baseline, jitter, dir)
  common = extra_env.merge("MALLARD_BENCH_JITTER" => jitter.to_s)
  plain = common.merge("RUBYOPT" => rubyopt)
  envs = { without: baseline ? agent_env(common, baseline, BASELINE_LIB) : plain, with: agent_env(common, variant) }
  envs.to_h { |name, env| [name, env.merge("MALLARD_BENCH_GC_OUT" => File.join(dir, name.to_s))] }
end

def agent_env(common, variant, lib = LIB)
  common.merge(VARIANT_ENV.fetch(variant))
        .merge("RUBYOPT" => rubyopt("-I#{lib} -rmallard/agent"))
end

# The jitter before everything else and the GC counts after, unless BARE.
def rubyopt(agent = nil)
  [("-r#{Bench::BOOT_JITTER}" unless BARE), agent, ("-r#{GC_COUNTS}" unless BARE)].compact.join(" ")
end

# Where each variant's server and its wrk run in a round: split, each pair on its own CPU; shared, both servers on
# one CPU and both wrks on the other. Either way the CPUs swap every round.
def layout(round, shared)
  first, second = round.even? ? [0, 1] : [1, 0]
  return { without: [first, first], with: [second, second] } unless shared

  { without: [first, second], with: [first, second] }
end

# Both servers up, each started on its CPU, in the round's order; yields [[variant, url, subject, load CPU], ...].
def with_pair(app, cpus, envs, baseline, order, &block)
  settings = { without: [!baseline.nil?, envs[:without], cpus[:without][0]], with: [true, envs[:with], cpus[:with][0]] }
  with_servers(app, order, settings) do |started|
    block.call(%i[without with].map { |name| [name, *started[name], cpus[name][1]] })
  end
end

# Starts the named servers one after another, each inside the last; yields { name => [url, subject] }.
def with_servers(app, names, settings, started = {}, &block)
  return block.call(started) if names.empty?

  name, *rest = names
  agent, env, cpu = settings.fetch(name)
  Bench.with_puma(app, agent: agent, extra_env: env, cpus: [cpu]) do |url, subject|
    with_servers(app, rest, settings, started.merge(name => [url, subject]), &block)
  end
end

# Which server starts first: each block of two rounds has each order once, and over two blocks each order meets
# each CPU. Started always in one order, an A/A pair of the Rails app came out 0.981 (0.977 … 0.993) in CPU per
# request: the second to boot ran cheaper.
def start_order(round) = [0, 3].include?(round % 4) ? %i[without with] : %i[with without]

# Both loads at once, each wrk on its load CPU; [result, CPU seconds of the server, its RSS in KB as the load
# ends] by variant.
def measure_pair(pair, path, seconds)
  threads = pair.map do |name, url, subject, cpu_index|
    Thread.new do
      Mallard::Cpus::Affinity.set(0, [cpu_index])
      before = Mallard::Probe::CpuTime.processes([subject.pid])
      result = Bench.wrk(url + path, duration: seconds)
      cpu_s = Mallard::Probe::CpuTime.processes([subject.pid]) - before
      [name, [result, cpu_s, Mallard::Probe::MemoryReading.of(Mallard::Probe::ProcFiles.new(subject.pid)).rss_kb]]
    end
  end
  threads.to_h(&:value)
end

# Each server writes GC.stat when the counted load begins (gc_counts.rb); the bench waits for the files, a
# second at most, so the window starts where the load does.
def mark_gc_window(pair, dir)
  pair.each { |_name, _url, subject, _cpu| Process.kill("WINCH", subject.pid) }
  deadline = Mallard::Clock.monotonic + 1
  sleep 0.01 until pair.all? { |name, *| File.exist?(File.join(dir, "#{name}.window")) } ||
                   Mallard::Clock.monotonic > deadline
end

# GC.stat's counts over the counted load: at exit less at the window's start. {} when the server wrote either file
# late or not at all: on Ruby 3.3 a server now and then did not reach its at_exit when stopped.
def gc_counts(path)
  ended, window = [path, "#{path}.window"].map { |file| File.exist?(file) ? stat_lines(file) : nil }
  return {} unless ended && window

  ended.to_h { |key, value| [key, key == "heap_allocated_pages" ? value : value - window.fetch(key)] }
end

def stat_lines(path)
  File.readlines(path).to_h do |line|
    key, value = line.split
    [key, Integer(value)]
  end
end

random = Random.new
rounds.times do |round|
  cpus = layout(round, shared)
  jitter = jitter_max.zero? ? 0 : random.rand(jitter_max + 1)
  Dir.mktmpdir("mallard-bench-pair") do |dir|
    served = {}
    envs = environments(extra_env, variant, baseline, jitter, dir)
    with_pair(app, cpus, envs, baseline, start_order(round)) do |pair|
      Bench::CpuGroups.place(groups_dir, pair.to_h { |name, _url, subject, _cpu| [name, subject.pid] }) if groups_dir
      measure_pair(pair, path, 1) # warm both up; not counted
      mark_gc_window(pair, dir) unless BARE
      served = measure_pair(pair, path, seconds)
    end
    served.each do |name, (result, cpu_s, rss_kb)|
      counts = gc_counts(File.join(dir, name.to_s))
      figures[:rps][name] << result.rps
      figures[:cpu][name] << (cpu_s * 1000 / result.requests)
      figures[:rss][name] << rss_kb.to_f
      majors, gc_ms = counts.values_at("major_gc_count", "time")
      figures[:majors][name] << (majors ? [majors, 0.5].max * 1000.0 / result.requests : Float::NAN)
      figures[:gc_ms][name] << (gc_ms ? gc_ms.to_f / result.requests : Float::NAN)
      puts format("round %d, jitter %5d, %-7s CPU %d: %.0f req/s, %.4f ms CPU a request, %.1f MiB RSS, %s majors, " \
                  "%s ms GC, %s heap pages", round, jitter, name, cpus[name][0], result.rps,
                  cpu_s * 1000 / result.requests, rss_kb / 1024.0, majors || "?", gc_ms || "?",
                  counts["heap_allocated_pages"] || "?")
    end
  end
end

# Each block of two rounds has each variant once on each CPU: the geometric mean of its two rounds cancels CPU 0
# against CPU 1 (this guest's CPU 0 ran whole runs at 60% of CPU 1's speed).
blocks = figures.transform_values do |by_variant|
  by_variant.transform_values do |values|
    whole = values.each_slice(2).select { |pair| pair.size == 2 }
    whole.map { |a, b| Math.sqrt(a * b) }
  end
end
puts "app: #{app}#{path}, variant #{variant} against #{baseline || 'no agent'}, #{rounds} rounds of #{seconds} s " \
     "side by side (#{shared ? 'both servers on one CPU' : 'one CPU each'}, CPUs swapped each round; a block: two " \
     "rounds; #{groups_dir ? 'a CPU group each' : "shared between threads: #{no_groups}"}), wrk -c 10 each, " \
     "#{BARE ? 'none of the bench\'s files loaded' : "boot jitter 0–#{jitter_max} strings"}"
ratio = Bench.print_rates(blocks[:rps], :with, :without, "req/s with/without")
puts format("  → agent cost %.1f%% of throughput", (1 - ratio) * 100)
cpu_ratio = Bench.print_ratio(blocks[:cpu], :with, :without, "CPU per request with/without", unit: "ms")
puts format("  → agent cost %+.1f%% of CPU per request", (cpu_ratio - 1) * 100)
Bench.print_ratio(blocks[:rss], :with, :without, "RSS as the load ends with/without", unit: "KB")
exit if BARE # no GC counts

counted = blocks[:majors][:with].each_index.reject { |i| blocks[:majors].values.any? { |values| values[i].nan? } }
counted_blocks = ->(figure) { blocks[figure].transform_values { |values| values.values_at(*counted) } }
Bench.print_ratio(counted_blocks[:majors], :with, :without, "major GCs per 1,000 requests with/without", unit: "per 1k")
Bench.print_ratio(counted_blocks[:gc_ms], :with, :without, "GC time per request with/without", unit: "ms")
# The extra CPU per request and the extra GC time per request, block by block, in microseconds.
stats = Mallard::Analysis::Statistics
%i[cpu gc_ms].each do |figure|
  by_variant = counted_blocks[figure]
  extra = by_variant[:with].zip(by_variant[:without]).map { |with, without| (with - without) * 1000 }
  low, high = stats.bootstrap_ci(extra) { |sample| stats.median(sample) }
  puts format("  extra %-12s per request with the agent: median %.1f µs (95%% CI %.1f … %.1f)",
              figure == :cpu ? "CPU" : "GC time", stats.median(extra), low, high)
end
