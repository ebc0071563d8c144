# frozen_string_literal: true

# What mallard costs a job worker: jobs/s of the bundled job app (examples/jobs, a 20-thread Sidekiq) draining
# the same backlog of jobs bare, and as mallard runs it — the agent with its Sidekiq middleware inside the worker,
# and mallard's reads of Redis (Probe::SidekiqStats) and of the agent's file every 0.5 s outside it — once with
# the agent's per-GC timeline (its default) and once without (MALLARD_GC_EVENTS=off), to tell the two apart.
# Rounds are interleaved (each rotates the order) so that drift of the machine hits all alike; each run has a
# fresh Redis.
#
# The backlog is pushed before the worker starts, so nothing else runs while it drains; the rate is the
# backlog over the time from the first job taken to the queue found empty (LLEN every 20 ms, alike in both).
#   ruby bench/sidekiq_cost.rb [ROUNDS] [JOBS] [THREADS]
require_relative "support"

rounds = Integer(ARGV.fetch(0, 6))
backlog = Integer(ARGV.fetch(1, 5000))
threads = ARGV.fetch(2, "20")
app = File.expand_path("../examples/jobs", __dir__)
stats = Mallard::Analysis::Statistics
# variant => the agent's extra environment; nil: no agent, no reads
variants = { bare: nil, mallard: {}, no_gc_timeline: { "MALLARD_GC_EVENTS" => "off" } }
rates = variants.transform_values { [] }

push = <<~RUBY
  require "sidekiq"
  require "./jobs"
  Integer(ARGV[0]).times.each_slice(1000) { |slice| Sidekiq::Client.push_bulk("class" => ReportJob, "args" => slice.map { |n| [n] }) }
RUBY

drain_rate = lambda do |url, total|
  redis = Mallard::Probe::RedisConnection.new(url)
  sleep 0.02 while redis.call("LLEN", "queue:default") == total
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  sleep 0.02 while redis.call("LLEN", "queue:default").positive?
  total / (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
ensure
  redis&.close
end

# What Workload::Jobs and the soak's sampler read every tick, besides /proc.
mallard_reads = lambda do |url, run_dir|
  Thread.new do
    stats_reader = Mallard::Probe::SidekiqStats.new(Mallard::Probe::RedisConnection.new(url))
    agent_log = Mallard::Probe::AgentLog.new(run_dir.file("agent.jsonl"))
    loop do
      stats_reader.read
      agent_log.busy
      sleep 0.5
    end
  end
end

rounds.times do |round|
  variants.keys.rotate(round % variants.size).each do |variant|
    Dir.mktmpdir("mallard-bench") do |dir|
      run_dir = Mallard::Run::Directory.new(dir)
      redis = Mallard::Target::RedisServer.new.start(run_dir)
      plain = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: nil).merge("REDIS_URL" => redis.url)
      system(plain, Gem.ruby, "-e", push, backlog.to_s, chdir: app, exception: true)
      agent = variants[variant] && Bench.agent_settings(true, run_dir)
      env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: agent)
                                               .merge("REDIS_URL" => redis.url, "MALLARD_JOBS" => (agent && "on"))
                                               .merge(variants[variant] || {})
      argv = ["sidekiq", "-r", "./jobs.rb", "-c", threads]
      worker = Mallard::Target::Command.new(argv, env: env, chdir: app, log_path: run_dir.file("worker.log"))
      reads = mallard_reads.call(redis.url, run_dir) if agent
      begin
        worker.start
        rates[variant] << drain_rate.call(redis.url, backlog)
      ensure
        reads&.kill
        worker.stop
        redis.stop
      end
    end
  end
end

puts "examples/jobs, #{threads} threads, a backlog of #{backlog} jobs, #{rounds} interleaved rounds"
rates.each do |variant, values|
  puts format("  %-15s median %.0f jobs/s  (%s)", variant, stats.median(values), values.map(&:round).join(", "))
end
%i[mallard no_gc_timeline].each do |variant|
  ratios = rates[variant].zip(rates[:bare]).map { |with, without| with / without }
  low, high = stats.bootstrap_ci(ratios) { |sample| stats.median(sample) }
  puts format("  %s/bare: median %.3f (95%% CI %.3f … %.3f) → cost %.1f%% of jobs/s", variant,
              stats.median(ratios), low, high, (1 - stats.median(ratios)) * 100)
end

# The middleware's own cost per job, which the rounds above cannot resolve on a small machine: JobMiddleware around
# an empty job, in a fresh Ruby, against the empty job alone (CPU time, five rounds of 500,000).
per_job = <<~RUBY
  require "mallard/agent/recorder"
  require "mallard/agent/job_middleware"
  require "tmpdir"
  middleware = Mallard::Agent::JobMiddleware.new(Mallard::Agent::Recorder.new(path: File.join(Dir.tmpdir, "x"), jobs: true))
  job = { "enqueued_at" => Time.now.to_f }
  cpu = -> { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
  costs = Array.new(5) do
    start = cpu.call
    500_000.times { middleware.call(nil, job, "default") { nil } }
    wrapped = cpu.call - start
    start = cpu.call
    500_000.times { [nil, job, "default"].then { nil } }
    (wrapped - (cpu.call - start)) / 500_000 * 1e6
  end
  puts costs.sort[2]
RUBY
micro = Float(IO.popen([Gem.ruby, "-I#{File.expand_path('../lib', __dir__)}", "-e", per_job], &:read))
puts format("  JobMiddleware: %.2f µs of CPU a job (median of 5); at the bare median of %.0f jobs/s, %.2f%% of a core",
            micro, stats.median(rates[:bare]), micro * stats.median(rates[:bare]) / 1e4)
