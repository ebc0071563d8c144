# frozen_string_literal: true

# The demo app with a planted cost for bench/cost_resolution.rb: with BENCH_BURN_US set, every request first spends
# that many microseconds of its thread's CPU time in a loop, so a configuration carrying the variable costs a known,
# fixed amount of CPU per request and nothing else.
demo = Rack::Builder.parse_file(File.expand_path("../../../examples/demo/config.ru", __dir__))
demo = demo.first if demo.is_a?(Array) # Rack 2 returns [app, options]
burn_us = ENV.fetch("BENCH_BURN_US", "0").to_f

run(lambda do |env|
  started = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :microsecond)
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :microsecond) - started < burn_us
  demo.call(env)
end)
