# frozen_string_literal: true

require "json"
require_relative "puma_server"

# A fleet on this machine, as a rollout of an allocator to part of a production fleet looks to mallard fleet: Pumas
# of one app with mallard's exporter, some under glibc (job "glibc", in two halves by label "half" for an A/A split)
# and some under MALLOC_ARENA_MAX=2 (job "arena2"), scraped every second by a real Prometheus (Debian's), all loaded
# by wrk at once for a bounded time. Used by test/integration/fleet_test.rb and bench/lab_against_fleet.rb.
class SimulatedFleet
  RUBYOPT = "-I#{File.expand_path('../../lib', __dir__)} -rmallard/exporter".freeze
  # The load's paths, in mallard's wrk script's rotation: 3 requests of 4 to /, 1 to /rows (the demo app serves every
  # path alike), the request mix the exporter counts and compare --like takes.
  PATHS = %w[/ / /rows /].freeze
  WRK_SCRIPT = File.expand_path("../../lib/mallard/probe/wrk.lua", __dir__)

  attr_reader :url, :metrics

  # @param dir [String] where Prometheus keeps its configuration, data and log
  def initialize(app:, dir:, glibc:, arena2:, threads:)
    @app = app
    @dir = dir
    @glibc = glibc
    @arena2 = arena2
    @threads = threads
  end

  # Starts the Pumas and Prometheus; the block gets the fleet, and everything is stopped after it.
  def run
    @servers = start_pumas
    @url = start_prometheus
    yield self
  ensure
    @prometheus&.stop
    @servers&.each(&:stop)
  end

  # wrk, bounded, against every Puma at once; each reaped before it returns.
  def load(seconds:) = start_load(seconds: seconds).each { |pid| Process.wait(pid) }

  # @return [Array<Integer>] wrk's PIDs, one a Puma, for the caller to reap (a test kills them if it fails first)
  def start_load(seconds:, connections: 32)
    @servers.each_index.map do |index|
      Process.spawn({ "MALLARD_PATHS" => PATHS.join("\n") }, "wrk", "-t1", "-c#{connections}", "-d#{seconds}s",
                    "-s", WRK_SCRIPT, "#{@servers[index].url}/", out: wrk_output(index), err: File::NULL)
    end
  end

  # The requests wrk counted answered, a Puma each in the order of #metrics (glibc's first), once its load is reaped:
  # an independent count of what each tree served.
  def requests_answered
    @servers.each_index.map do |index|
      JSON.parse(File.read(wrk_output(index))[/^MALLARD_JSON (.*)$/, 1]).fetch("requests")
    end
  end

  private

  def wrk_output(index) = File.join(@dir, "wrk-#{index}.out")

  def start_pumas
    @metrics = Array.new(@glibc + @arena2) { "127.0.0.1:#{Mallard::Target::FreePort.pick}" }
    servers = @metrics.each_with_index.map do |metrics, index|
      env = { "RUBYOPT" => RUBYOPT, "MALLARD_METRICS_INTERVAL" => "1", "MALLARD_METRICS" => metrics }
      env["MALLOC_ARENA_MAX"] = "2" if index >= @glibc
      PumaServer.new(@app, threads: "#{@threads}:#{@threads}", env: env)
    end
    servers.map { |server| Thread.new { server.start } }.each(&:join)
    servers
  end

  def start_prometheus
    port = Mallard::Target::FreePort.pick
    File.write(File.join(@dir, "prometheus.yml"), prometheus_config)
    @prometheus = Mallard::Target::Command.new(
      ["prometheus", "--config.file=#{File.join(@dir, 'prometheus.yml')}",
       "--storage.tsdb.path=#{File.join(@dir, 'tsdb')}", "--web.listen-address=127.0.0.1:#{port}"],
      log_path: File.join(@dir, "prometheus.log"), chdir: @dir
    )
    url = "http://127.0.0.1:#{port}"
    @prometheus.start.wait_until_up(timeout: 30) { Mallard::Target::HttpProbe.answers?("#{url}/-/ready") }
    url
  end

  # Targets in two jobs; glibc's in two halves (label half) for the A/A split, alternating in the order the Pumas
  # and their loads were started, so the halves differ only by chance.
  def prometheus_config
    first, second = @metrics.first(@glibc).partition.with_index { |_, index| index.even? }
    groups = [["glibc", first, "1"], ["glibc", second, "2"], ["arena2", @metrics.drop(@glibc), "1"]]
    jobs = groups.group_by(&:first).map do |job, parts|
      { "job_name" => job, "scrape_interval" => "1s", "scrape_timeout" => "1s",
        "static_configs" => parts.map { |_, targets, half| { "targets" => targets, "labels" => { "half" => half } } } }
    end
    JSON.generate("global" => { "scrape_interval" => "1s" }, "scrape_configs" => jobs) # YAML reads JSON
  end
end
