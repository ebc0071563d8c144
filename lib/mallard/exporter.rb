# frozen_string_literal: true

# mallard's metrics endpoint for production: OpenMetrics for Prometheus, served from the app's own process on a
# port of its own, never the app's.
#
#   require "mallard/exporter"                     # first line of config/puma.rb, or config/boot.rb
#   RUBYOPT="-rmallard/exporter"                   # or for every Ruby process started with this environment
#   MALLARD_METRICS=127.0.0.1:9394                 # where it listens (the default; "off" to disable)
#
# Per process: RSS, PSS and USS; GC runs, time, live slots and old objects; the allocator's statistics; the
# malloc_trim count of mallard/trim; the allocator as `mallard doctor` detects it; and the requests Puma's
# processes served, by method and path (PumaHook, RequestCounts), summed over the tree. One endpoint covers a
# Puma cluster: the process that loaded this file serves, and every process it forks (Puma's workers) writes
# its own readings every MALLARD_METRICS_INTERVAL seconds (default 5) to a private directory that the server
# reads at each scrape, beside each process's /proc files. Metrics are labelled pid and role (master, worker).
#
# It binds 127.0.0.1 unless MALLARD_METRICS names another host, and says where it listens, once, on stderr.
# It runs inside your app, so it loads only its own files and the standard library, and never raises into
# the app: what goes wrong is one line on stderr.
require "io/wait"
require "tmpdir"
require_relative "exporter/settings"
require_relative "exporter/readings"
require_relative "exporter/readings_dir"
require_relative "exporter/scrape"
require_relative "exporter/server"
require_relative "exporter/puma_hook"

module Mallard
  module Exporter
    # A process that execs right after loading this (bundle exec, a shell wrapper) neither binds nor writes:
    # the one it execs loads the exporter again and serves.
    START_DELAY = 0.5

    # Ruby 3.1+ routes every fork through Process._fork. A thread does not survive fork, so each child (a Puma
    # worker) starts its own writer, and closes its copy of the listening socket, which only its parent serves.
    module ForkHook
      def _fork
        pid = super
        Exporter.after_fork if pid.zero?
        pid
      end
    end

    class << self
      # @return [Boolean] whether it started; idempotent
      def start(env = ENV)
        return @started unless @started.nil?

        @settings = Settings.from_env(env)
        return @started = false unless @settings

        @root_pid = Process.pid
        @dir = ReadingsDir.new(File.join(Dir.tmpdir,
                                         "mallard-metrics-#{Process.pid}-#{Random.urandom(6).unpack1('H*')}"))
        Process.singleton_class.prepend(ForkHook) if Process.respond_to?(:_fork)
        at_exit { clean_up }
        @thread = start_thread(serve: true)
        PumaHook.watch
        @started = true
      rescue StandardError => e
        warn_once("not started: #{e.message}")
        @started = false
      end

      def after_fork
        RequestCounts.after_fork
        @server&.close
        @server = nil
        @thread = start_thread(serve: false)
      rescue StandardError => e
        warn_once("a forked process writes no readings: #{e.message}")
      end

      private

      def start_thread(serve:)
        thread = Thread.new { run(serve) }
        thread.name = "mallard-exporter"
        thread.report_on_exception = false
        thread
      end

      def run(serve)
        if serve
          sleep START_DELAY
          @server = bind
          return unless @server
        end
        @start_time = Scrape.start_time
        loop { wait(@settings.interval) }
      rescue StandardError => e
        warn_once("stopped: #{e.class}: #{e.message}")
      end

      # Writes this process's readings, then serves scrapes (if it serves) until the next write is due.
      def wait(interval)
        write_readings
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + interval
        while (left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)).positive?
          next sleep(left) unless @server

          @server.serve_pending if @server.to_io.wait_readable(left)
        end
      end

      def write_readings
        @dir.write(Process.pid, Readings.dump(Readings.take.merge("started" => @start_time)))
      end

      def bind
        scrape = Scrape.new(root_pid: @root_pid, readings_dir: @dir)
        server = Server.new(@settings.host, @settings.port) { |accept| body(scrape, accept) }
        warn_once(where(server.port))
        server
      rescue SystemCallError, SocketError => e
        warn_once("cannot listen on #{@settings.host}:#{@settings.port} (#{e.message}); this process " \
                  "exports nothing (MALLARD_METRICS=HOST:PORT to choose another)")
        nil
      end

      # The server's own readings are written fresh; its workers' are at most one interval old.
      def body(scrape, accept)
        write_readings
        exposition = Exposition.new(scrape.snapshots, open_metrics: accept.include?("application/openmetrics-text"))
        [exposition.content_type, exposition.render]
      end

      def where(port)
        url = @settings.url(port)
        if @settings.loopback?
          return "serving OpenMetrics on #{url} (loopback only; MALLARD_METRICS=HOST:PORT to change)"
        end

        "serving OpenMetrics on #{url}: reachable from other hosts, who can read its processes' pids, memory " \
          "and library paths (MALLARD_METRICS=127.0.0.1:#{port} keeps it to this host)"
      end

      def clean_up
        Process.pid == @root_pid ? @dir.remove_all : @dir.remove(Process.pid)
      rescue StandardError
        nil
      end

      def warn_once(message)
        (@warned ||= {})[message] ||= warn("mallard exporter: #{message}") || true
      rescue StandardError
        nil
      end
    end
  end
end

Mallard::Exporter.start
