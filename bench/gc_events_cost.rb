# frozen_string_literal: true

# What the agent's per-GC timeline (mallard/gc_events_ext) costs:
# 1. throughput of a GC-heavy Puma app with the agent, with and without the timeline (MALLARD_GC_EVENTS=off),
#    measured with wrk in interleaved runs (A B, B A, ...) so machine drift hits both alike;
# 2. CPU per GC: CPU time of a fresh Ruby running minor GCs, with the hook and the agent's line building (a
#    "gc" line every 70 GCs) against without the extension, interleaved; less disturbed by other load than 1;
#    and the CPU of an allocation-bound loop (the stable app's 200 strings, 200,000 times), where Ruby 3.1 and
#    3.2 send every allocation through the GC's slow path once any GC event hook is installed;
# 3. memory: RSS growth of a Ruby process across many GCs with the ring (drained as the agent does, and never
#    drained, so every GC past the ring is dropped) and, for comparison, with GC::Profiler, which keeps them all.
#   ruby bench/gc_events_cost.rb [ROUNDS] [SECONDS] [APP] [GCS]
require_relative "support"
require "json"
require "rbconfig"

rounds = Integer(ARGV.fetch(0, 8))
seconds = Integer(ARGV.fetch(1, 5))
app = ARGV.fetch(2, "stable")
gcs = Integer(ARGV.fetch(3, 200_000))
stats = Mallard::Analysis::Statistics
rps = { without: [], with: [] }
gc_rate = []

gc_events = lambda do |run_dir|
  File.foreach(run_dir.file("agent.jsonl")).map { |line| JSON.parse(line) }.select { |line| line["kind"] == "gc" }
end

(seconds.positive? ? rounds : 0).times do |round| # SECONDS 0: skip the throughput part
  %i[without with].rotate(round % 2).each do |variant|
    env = variant == :with ? {} : { "MALLARD_GC_EVENTS" => "off" }
    Bench.with_puma(app, agent: true, extra_env: env) do |url, _subject, run_dir|
      Bench.wrk(url, duration: 1) # warm the server up; not counted
      rps[variant] << Bench.wrk(url, duration: seconds).rps
      gc_rate << (gc_events.call(run_dir).sum { |line| line["events"].size } / (seconds + 1.0)) if variant == :with
    end
  end
end

if seconds.positive?
  ratios = rps[:with].zip(rps[:without]).map { |with, without| with / without }
  low, high = stats.bootstrap_ci(ratios) { |sample| stats.median(sample) }
  puts "app: #{app}, #{rounds} interleaved rounds of #{seconds} s, wrk -c 10, agent on in both"
  puts format("  GCs recorded per second of each run (boot, warm-up, load): median %.0f", stats.median(gc_rate))
  rps.each do |variant, values|
    puts format("  timeline %-8s median %.0f req/s  (%s)", variant, stats.median(values),
                values.map(&:round).join(", "))
  end
  puts format("  with/without: median %.3f (95%% CI %.3f … %.3f) → timeline cost %.1f%% of throughput",
              stats.median(ratios), low, high, (1 - stats.median(ratios)) * 100)
end

# One fresh Ruby per variant: minor GCs on a small heap, RSS read before and after.
memory_probe = <<~RUBY
  variant, gcs = ARGV[0], Integer(ARGV[1])
  rss = -> { File.read("/proc/self/status")[/^VmRSS:\\s+(\\d+)/, 1].to_i }
  require "mallard/gc_events_ext" unless variant == "profiler"
  buffer = Array.new(256 * 11)
  variant == "profiler" ? GC::Profiler.enable : Mallard::GcEvents.start
  5000.times { GC.start(full_mark: false) } # past the ring's size: all its pages are resident before
  Mallard::GcEvents.drain(buffer) while variant == "drained" && Mallard::GcEvents.drain(buffer).positive?
  before = rss.call
  (gcs / 1000).times do
    1000.times { GC.start(full_mark: false) }
    1 while variant == "drained" && Mallard::GcEvents.drain(buffer).positive?
  end
  held = variant == "profiler" ? GC::Profiler.raw_data.size : Mallard::GcEvents.pending
  dropped = variant == "undrained" ? Mallard::GcEvents.take_dropped : 0
  puts [rss.call - before, held, dropped].join(" ")
RUBY
lib = File.expand_path("../lib", __dir__)
require "mallard/gc_events_ext"
puts "memory across #{gcs} minor GCs, after 5,000 that fill the ring once; the ring is " \
     "#{Mallard::GcEvents::RING_BYTES / 1024} KiB of static memory (#{Mallard::GcEvents::RING_SIZE} entries)"
%w[drained undrained profiler].each do |variant|
  growth, held, dropped = IO.popen([RbConfig.ruby, "-I#{lib}", "-e", memory_probe, variant, gcs.to_s], &:read)
                            .split.map(&:to_i)
  puts format("  %-10s RSS growth %6d KiB, records held %7d, dropped %7d", variant, growth, held, dropped)
end

# CPU time, not wall time: a busy machine stretches both variants alike.
cpu_probe = <<~RUBY
  variant, gcs = ARGV[0], Integer(ARGV[1])
  if variant == "on"
    require "mallard/agent/gc_timeline"
    Mallard::Agent::GcTimeline.start
    timeline = Mallard::Agent::GcTimeline.new(origin: 0.0)
  end
  cpu = -> { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
  1000.times { GC.start(full_mark: false) }
  timeline&.build(time: 1.0, pid: 1, requests: 1)
  began = cpu.call
  (gcs / 70).times do
    70.times { GC.start(full_mark: false) }
    timeline&.build(time: 1.0, pid: 1, requests: 1)
  end
  puts (cpu.call - began) * 1e6 / gcs
RUBY
cpu_gcs = 70_000
# The probe run in a fresh Ruby per round, hooks off and on in alternating order: { off: [..], on: [..] }.
interleaved = lambda do |probe, *args|
  figures = { off: [], on: [] }
  rounds.times do |round|
    %i[off on].rotate(round % 2).each do |variant|
      figures[variant] << Float(IO.popen([RbConfig.ruby, "-I#{lib}", "-e", probe, variant.to_s, *args], &:read))
    end
  end
  figures
end
listed = ->(values) { values.map { |value| value.round(2) }.join(", ") }

per_gc = interleaved.call(cpu_probe, cpu_gcs.to_s)
extra = per_gc[:on].zip(per_gc[:off]).map { |on, off| on - off }
low, high = stats.bootstrap_ci(extra) { |sample| stats.median(sample) }
puts "CPU per minor GC (GC.start(full_mark: false) on a small heap), #{rounds} interleaved rounds of #{cpu_gcs} GCs"
per_gc.each do |variant, values|
  puts format("  timeline %-4s median %.2f µs  (%s)", variant, stats.median(values), listed.call(values))
end
puts format("  the timeline's share: median %.2f µs a GC (95%% CI %.2f … %.2f)", stats.median(extra), low, high)

alloc_probe = <<~RUBY
  if ARGV[0] == "on"
    require "mallard/gc_events_ext"
    Mallard::GcEvents.start
  end
  cpu = -> { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
  20_000.times { Array.new(200) { |i| "row \#{i}" } }
  began = cpu.call
  200_000.times { Array.new(200) { |i| "row \#{i}" } }
  puts cpu.call - began
RUBY
loop_cpu = interleaved.call(alloc_probe)
ratios = loop_cpu[:on].zip(loop_cpu[:off]).map { |on, off| on / off }
low, high = stats.bootstrap_ci(ratios) { |sample| stats.median(sample) }
puts "CPU of an allocation-bound loop (40 million strings), Ruby #{RUBY_VERSION}, #{rounds} interleaved rounds"
loop_cpu.each do |variant, values|
  puts format("  hooks %-4s median %.2f s  (%s)", variant, stats.median(values), listed.call(values))
end
puts format("  on/off: median %.3f (95%% CI %.3f … %.3f)", stats.median(ratios), low, high)
