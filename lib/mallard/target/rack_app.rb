# frozen_string_literal: true

require "net/http"

module Mallard
  module Target
    # A directory holding config.ru (Rails included), served by Puma on a free 127.0.0.1 port
    # through a generated rackup that wraps the app in the agent's middleware.
    class RackApp
      # Puma's master logs it once a worker serves: "- Worker 1 (PID: 4242) booted in 0.41s, phase: 0"
      # (Puma 5 and 6; Puma 4 wrote "pid" and no time).
      WORKER_BOOTED = /- Worker (\d+) \(PID: (\d+)\) booted/i

      attr_reader :url, :dir

      def initialize(dir:, threads: 5, workers: 0)
        @dir = File.expand_path(dir)
        @threads = threads
        @workers = workers
        config_ru = File.join(@dir, "config.ru")
        raise NotFound, "no config.ru in #{@dir}" unless File.file?(config_ru)
      end

      def kind = "rack"

      def describe
        "#{@dir} (Puma, #{@threads} threads, #{@workers} workers)"
      end

      # @param run_dir [Run::Directory] where the generated rackup and the server's log go
      def command(env:, run_dir:)
        port = FreePort.pick
        @url = "http://127.0.0.1:#{port}/"
        @log_path = run_dir.file("subject.log")
        Command.new(server_argv(port, rackup(run_dir)), env: env.merge(bundle_env), chdir: @dir,
                                                        log_path: @log_path)
      end

      # Up once it answers and, in cluster mode, once every worker has booted: a worker that boots
      # first accepts all of the load tool's keep-alive connections, and keeps them for the whole run.
      def ready?
        workers_booted >= @workers && HttpProbe.answers?(@url)
      end

      # What the last #ready? was still waiting for, for a boot timeout's message.
      def waiting_for
        return "no answer at #{@url}" unless HttpProbe.answers?(@url)

        "#{@url} answered, but only #{workers_booted} of #{@workers} Puma workers had booted"
      end

      private

      # Workers whose latest "booted" line names a process still alive (a worker that died and was
      # replaced is counted once its replacement boots).
      def workers_booted
        return 0 unless @workers.positive?

        latest = File.foreach(@log_path).each_with_object({}) do |line, pids|
          index, pid = line.match(WORKER_BOOTED)&.captures
          pids[index] = Integer(pid) if index
        end
        latest.values.count { |pid| File.directory?("/proc/#{pid}") }
      rescue SystemCallError
        0
      end

      def rackup(run_dir)
        path = run_dir.file("mallard.ru")
        Agent::Rackup.write(path, app_config_ru: File.join(@dir, "config.ru"))
        path
      end

      def server_argv(port, rackup)
        puma = bundled? ? %w[bundle exec puma] : ["puma"]
        [*puma, "--bind", "tcp://127.0.0.1:#{port}", "--threads", "#{@threads}:#{@threads}",
         "--workers", @workers.to_s, "--environment", "production", rackup]
      end

      # An app with a Gemfile runs under its own bundle, as it does in production.
      def bundled?
        File.file?(File.join(@dir, "Gemfile"))
      end

      def bundle_env
        bundled? ? { "BUNDLE_GEMFILE" => File.join(@dir, "Gemfile") } : {}
      end
    end
  end
end
