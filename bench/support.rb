# frozen_string_literal: true

$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "mallard"
require "tmpdir"
require "uri"

# Shared by the benchmarks: a real Puma on a fixture app, with or without mallard's agent.
module Bench
  APPS = File.expand_path("../test/fixtures/apps", __dir__)
  # Loaded first (RUBYOPT) to draw Ruby 3.1's heap lottery again: MALLARD_BENCH_JITTER temporary strings at boot.
  BOOT_JITTER = File.expand_path("apps/boot_jitter.rb", __dir__)

  module_function

  # Yields the URL of a Puma serving the app, the subject and its run directory; the agent variant goes
  # through mallard's own rackup. extra_env is added to the subject's environment. app: a fixture's name, or a
  # directory. cpus: the CPUs the server is started on (nil: wherever this process may run).
  def with_puma(app, agent:, threads: 5, workers: 0, extra_env: {}, cpus: nil)
    Dir.mktmpdir("mallard-bench") do |dir|
      run_dir = Mallard::Run::Directory.new(dir)
      target = Mallard::Target::RackApp.new(dir: app_dir(app), threads: threads, workers: workers)
      env = Mallard::Target::SubjectEnvironment.build(allocator_env: {}, agent: agent_settings(agent, run_dir))
                                               .merge(extra_env)
      subject = target.command(env: env, run_dir: run_dir) # without the agent, the app's own config.ru
      begin
        (cpus ? Mallard::Cpus::Affinity.with(cpus) { subject.start } : subject.start)
          .wait_until_up(timeout: 30) { target.ready? }
        yield target.url, subject, run_dir
      ensure
        subject.stop
      end
    end
  end

  def app_dir(app) = File.directory?(app) ? File.expand_path(app) : File.join(APPS, app)

  def agent_settings(agent, run_dir)
    return unless agent

    { out: run_dir.file("agent.jsonl"), t0: Process.clock_gettime(Process::CLOCK_MONOTONIC),
      interval: 0.5 }
  end

  # [app directory, request path, environment] for a benchmark's APP argument: a fixture's name, a directory, or
  # "rails", the generated Rails app of the tests with a page that renders 3,000 rows.
  def app_of(name)
    return [app_dir(name), "", {}] unless name == "rails"

    require_relative "../test/support/rails_app"
    root = Dir.mktmpdir("mallard-bench-rails")
    at_exit { FileUtils.remove_entry(root) } # a copy of the app per run, else left in /tmp
    app = RailsApp.with_rows_page(root)
    [app, "rows", { "SECRET_KEY_BASE" => "x" * 64, "RAILS_ENV" => "production" }]
  end

  # Prints each variant's req/s by round, and the ratio of two variants round by round: its median and bootstrap
  # 95% interval. @return [Float] the median ratio
  def print_rates(rps, numerator, denominator, label)
    print_ratio(rps, numerator, denominator, label, unit: "req/s", digits: 0)
  end

  # The same for any figure measured per round.
  def print_ratio(values_by_variant, numerator, denominator, label, unit:, digits: 4)
    stats = Mallard::Analysis::Statistics
    values_by_variant.each do |variant, values|
      puts format("  %-8s median %.#{digits}f %s  (%s)", variant, stats.median(values), unit,
                  values.map { |value| value.round(digits) }.join(", "))
    end
    ratios = values_by_variant[numerator].zip(values_by_variant[denominator]).map { |top, bottom| top / bottom }
    low, high = stats.bootstrap_ci(ratios) { |sample| stats.median(sample) }
    median = stats.median(ratios)
    puts format("  %s: median %.3f (95%% CI %.3f … %.3f)", label, median, low, high)
    median
  end

  # wrk on the URL's page: the probe's load script requests its paths on the server's address and ignores a path in
  # the URL, so "/rows" went to "/" (a 404 in the Rails app) until 2026-11-27. A load answered with anything but 2xx
  # measured another page than the one meant, and stops the benchmark.
  def wrk(url, duration:, concurrency: 10)
    uri = URI(url)
    result = Dir.mktmpdir do |dir|
      load = Mallard::Probe::Wrk.new(url: "#{uri.scheme}://#{uri.host}:#{uri.port}/",
                                     paths: [uri.path.empty? ? "/" : uri.path], duration: duration,
                                     concurrency: concurrency, log_path: File.join(dir, "wrk.log"))
      load.start
      load.result
    end
    failed = result.status_codes.reject { |code, _| code.to_s.start_with?("2") }
    abort "bench: #{url} answered #{failed} of #{result.requests} requests: not the page meant" unless failed.empty?
    result
  end
end
