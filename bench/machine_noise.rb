# frozen_string_literal: true

# How steady this machine is, apart from mallard: the CPU time of the same work in fresh Rubies, run after run, on
# one CPU. An integer loop stays in the core; an allocation loop (strings of varied sizes, as a request makes)
# leans on caches and memory, which other tenants of a virtual machine's host share. Their spread is the floor under
# any CPU-per-request or req/s interval mallard can give here.
#   ruby bench/machine_noise.rb [RUNS]
require_relative "support"

runs = Integer(ARGV.fetch(0, 10))
cpu = Mallard::Cpus::Affinity.allowed.last
loops = {
  "integer loop (20M iterations)" => "20_000_000.times {}",
  "allocation loop (3M strings)" => "a = []; 3_000_000.times { |i| a << 'x' * (i % 300); a.clear if a.size > 1000 }"
}
stats = Mallard::Analysis::Statistics

loops.each do |name, code|
  script = "t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID); #{code}; " \
           "print Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t"
  times = Array.new(runs) { Float(IO.popen(["taskset", "-c", cpu.to_s, RbConfig.ruby, "-e", script], &:read)) }
  median = stats.median(times)
  sd_pct = 100 * stats.stddev(times.map { |time| Math.log(time) })
  puts format("%-32s median %.3f s CPU · min %.3f · max %.3f · (max − min) / median %.0f%% · SD %.1f%%", name, median,
              times.min, times.max, 100 * (times.max - times.min) / median, sd_pct)
end
