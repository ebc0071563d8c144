# frozen_string_literal: true

# What the agent's per-GC timeline costs, from each of its sources against none: "hooks" (mallard/gc_events_ext, GC
# event hooks filling a C ring) and "profiler" (GC::Profiler, read and cleared every interval), MALLARD_GC_EVENTS:
# 1. throughput of a GC-heavy Puma app with the agent, the timeline off, from the profiler and from the hooks,
#    measured with wrk in interleaved runs (each round rotates the order) so machine drift hits all alike;
# 2. CPU per GC: CPU time of a fresh Ruby running minor GCs, with each source and its line building (a "gc" line
#    every 70 GCs) against none, interleaved; less disturbed by other load than 1; and the CPU of an
#    allocation-bound loop (the stable app's 200 strings, 200,000 times, a line every 1,000), where Ruby 3.1 and
#    3.2 send every allocation through the GC's slow path once any GC event hook is installed;
# 3. memory: RSS growth of a Ruby process across many GCs with the ring (drained as the agent does, and never
#    drained, so every GC past the ring is dropped), with the profiler timeline, and, for comparison, with
#    GC::Profiler left to keep every record.
#   ruby bench/gc_events_cost.rb [ROUNDS] [SECONDS] [APP] [GCS] [RUBY]
# RUBY: the app and the probes run on that Ruby (e.g. bin/rubies' 3.3.8, where the hooks are the default), with
# YJIT on and mallard's extensions built for it; mallard's own Ruby without it.
require_relative "support"
require "json"
require "rbconfig"

rounds = Integer(ARGV.fetch(0, 8))
seconds = Integer(ARGV.fetch(1, 5))
app = ARGV.fetch(2, "stable")
gcs = Integer(ARGV.fetch(3, 200_000))
subject_ruby = ARGV[4] ? Mallard::Target::SubjectRuby.resolve(ARGV[4]) : Mallard::Target::SubjectRuby.own
ruby = subject_ruby.path
ruby_env = subject_ruby.own? ? {} : subject_ruby.subject_env.merge("RUBY_YJIT_ENABLE" => "1")
# The extensions built for that Ruby come first on the probes' load path (lib/mallard's are for mallard's Ruby).
ext_lib = ruby_env["MALLARD_EXT_DIR"] && Mallard::ExtensionBuild.new(ruby: ruby).call
# The probes run on that Ruby without mallard's bundle (bundle exec's RUBYOPT names mallard's Ruby's gems).
probe_env = subject_ruby.own? ? {} : ruby_env.merge("RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_GEMFILE" => nil)
stats = Mallard::Analysis::Statistics
sources = %i[off profiler hooks]
rps = sources.to_h { |source| [source, []] }
gc_rate = { profiler: [], hooks: [] }

gc_events = lambda do |run_dir|
  File.foreach(run_dir.file("agent.jsonl")).map { |line| JSON.parse(line) }.select { |line| line["kind"] == "gc" }
end
# Median of a/b over the rounds, with its 95% interval.
versus = lambda do |values, baseline|
  ratios = values.zip(baseline).map { |value, base| value / base }
  [stats.median(ratios), *stats.bootstrap_ci(ratios) { |sample| stats.median(sample) }]
end

(seconds.positive? ? rounds : 0).times do |round| # SECONDS 0: skip the throughput part
  sources.rotate(round % sources.size).each do |source|
    Bench.with_puma(app, agent: true,
                         extra_env: ruby_env.merge("MALLARD_GC_EVENTS" => source.to_s)) do |url, _subject, run_dir|
      Bench.wrk(url, duration: 1) # warm the server up; not counted
      rps[source] << Bench.wrk(url, duration: seconds).rps
      next if source == :off

      gc_rate[source] << (gc_events.call(run_dir).sum { |line| line["events"].size } / (seconds + 1.0))
    end
  end
end

if seconds.positive?
  puts "app: #{app} on Ruby #{subject_ruby.version}#{' with YJIT' if ruby_env.any?}, #{rounds} interleaved rounds " \
       "of #{seconds} s, wrk -c 10, agent on in all"
  gc_rate.each do |source, rates|
    puts format("  GCs recorded per second of each run (boot, warm-up, load), %-8s median %.0f", source,
                stats.median(rates))
  end
  rps.each do |source, values|
    puts format("  timeline %-8s median %.0f req/s  (%s)", source, stats.median(values),
                values.map(&:round).join(", "))
  end
  %i[profiler hooks].each do |source|
    ratio, low, high = versus.call(rps[source], rps[:off])
    puts format("  %s/off: median %.3f (95%% CI %.3f … %.3f) → timeline cost %.1f%% of throughput", source,
                ratio, low, high, (1 - ratio) * 100)
  end
end

# One fresh Ruby per variant: minor GCs on a small heap, RSS read before and after.
memory_probe = <<~RUBY
  variant, gcs = ARGV[0], Integer(ARGV[1])
  rss = -> { File.read("/proc/self/status")[/^VmRSS:\\s+(\\d+)/, 1].to_i }
  ring = %w[drained undrained].include?(variant)
  if ring
    require "mallard/gc_events_ext"
    Mallard::GcEvents.start
    buffer = Array.new(256 * 11)
  elsif variant == "profiler"
    require "mallard/agent/gc_profiler_timeline"
    Mallard::Agent::GcProfilerTimeline.start
    timeline = Mallard::Agent::GcProfilerTimeline.new(origin: 0.0)
  else
    GC::Profiler.enable
  end
  drain = lambda do
    1 while variant == "drained" && Mallard::GcEvents.drain(buffer).positive?
    timeline&.build(time: 1.0, pid: 1, requests: 1)
  end
  5000.times { GC.start(full_mark: false) } # past the ring's size: all its pages are resident before
  drain.call
  before = rss.call
  (gcs / 1000).times do
    1000.times { GC.start(full_mark: false) }
    drain.call
  end
  held = ring ? Mallard::GcEvents.pending : GC::Profiler.raw_data.size
  dropped = variant == "undrained" ? Mallard::GcEvents.take_dropped : 0
  puts [rss.call - before, held, dropped].join(" ")
RUBY
lib = File.expand_path("../lib", __dir__)
load_path = [*(["-I#{ext_lib}"] if ext_lib), "-I#{lib}"]
require "mallard/gc_events_ext"
puts "memory across #{gcs} minor GCs, after 5,000 that fill the ring once; the ring is " \
     "#{Mallard::GcEvents::RING_BYTES / 1024} KiB of static memory (#{Mallard::GcEvents::RING_SIZE} entries)"
{ "drained" => "ring, drained", "undrained" => "ring, never drained", "profiler" => "profiler timeline",
  "kept" => "GC::Profiler alone" }.each do |variant, label|
  growth, held, dropped = IO.popen(probe_env, [ruby, *load_path, "-e", memory_probe, variant, gcs.to_s], &:read)
                            .split.map(&:to_i)
  puts format("  %-20s RSS growth %6d KiB, records held %7d, dropped %7d", label, growth, held, dropped)
end

# The timeline of the source named by the probe's first argument, started as the agent starts it (nil for off).
timeline_setup = <<~RUBY
  require "mallard/agent/gc_timeline"
  require "mallard/agent/gc_profiler_timeline"
  source = { "hooks" => Mallard::Agent::GcTimeline, "profiler" => Mallard::Agent::GcProfilerTimeline }[ARGV[0]]
  timeline = source.new(origin: 0.0) if source && source.start.nil?
  cpu = -> { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
RUBY
# CPU time, not wall time: a busy machine stretches every variant alike.
cpu_probe = <<~RUBY
  #{timeline_setup}
  gcs = Integer(ARGV[1])
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
# The probe run in a fresh Ruby per round and source, the order rotated each round: { off: [..], ... }.
interleaved = lambda do |probe, *args|
  figures = sources.to_h { |source| [source, []] }
  rounds.times do |round|
    sources.rotate(round % sources.size).each do |source|
      figures[source] << Float(IO.popen(probe_env, [ruby, *load_path, "-e", probe, source.to_s, *args], &:read))
    end
  end
  figures
end
listed = ->(values) { values.map { |value| value.round(2) }.join(", ") }

per_gc = interleaved.call(cpu_probe, cpu_gcs.to_s)
puts "CPU per minor GC (GC.start(full_mark: false) on a small heap), #{rounds} interleaved rounds of #{cpu_gcs} GCs"
per_gc.each do |source, values|
  puts format("  timeline %-8s median %.2f µs  (%s)", source, stats.median(values), listed.call(values))
end
%i[profiler hooks].each do |source|
  extra = per_gc[source].zip(per_gc[:off]).map { |on, off| on - off }
  low, high = stats.bootstrap_ci(extra) { |sample| stats.median(sample) }
  puts format("  %s's share: median %.2f µs a GC (95%% CI %.2f … %.2f)", source, stats.median(extra), low, high)
end

alloc_probe = <<~RUBY
  #{timeline_setup}
  20_000.times { Array.new(200) { |i| "row \#{i}" } }
  timeline&.build(time: 1.0, pid: 1, requests: 1)
  began = cpu.call
  200.times do
    1000.times { Array.new(200) { |i| "row \#{i}" } }
    timeline&.build(time: 1.0, pid: 1, requests: 1)
  end
  puts cpu.call - began
RUBY
loop_cpu = interleaved.call(alloc_probe)
puts "CPU of an allocation-bound loop (40 million strings), Ruby #{subject_ruby.version}, #{rounds} interleaved rounds"
loop_cpu.each do |source, values|
  puts format("  timeline %-8s median %.2f s  (%s)", source, stats.median(values), listed.call(values))
end
%i[profiler hooks].each do |source|
  ratio, low, high = versus.call(loop_cpu[source], loop_cpu[:off])
  puts format("  %s/off: median %.3f (95%% CI %.3f … %.3f)", source, ratio, low, high)
end
