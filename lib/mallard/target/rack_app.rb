# frozen_string_literal: true

require "net/http"

module Mallard
  module Target
    # A directory holding config.ru (Rails included), served by Puma on a free 127.0.0.1 port
    # through a generated rackup that wraps the app in the agent's middleware.
    class RackApp
      attr_reader :url, :dir

      def initialize(dir:, threads: 5, workers: 0)
        @dir = File.expand_path(dir)
        @threads = threads
        @workers = workers
        config_ru = File.join(@dir, "config.ru")
        raise NotFound, "no config.ru in #{@dir}" unless File.file?(config_ru)
      end

      def kind = "rack"

      # Scrubbed: stored in meta.json and summaries, while @dir keeps its bytes to run the app in.
      def describe
        "#{Text.scrub(@dir)} (Puma, #{@threads} threads, #{@workers} workers)"
      end

      # @param run_dir [Run::Directory] where the generated rackup and the server's log go
      def command(env:, run_dir:)
        port = FreePort.pick
        @url = "http://127.0.0.1:#{port}/"
        Command.new(server_argv(port, rackup(run_dir)), env: env.merge(bundle_env), chdir: @dir,
                                                        log_path: run_dir.file("subject.log"))
      end

      def workload(options:, run_dir:)
        Workload::Http.new(url: @url, options: options, run_dir: run_dir)
      end

      def ready?
        HttpProbe.answers?(@url)
      end

      private

      def rackup(run_dir)
        path = run_dir.file("mallard.ru")
        Rackup.write(path, app_config_ru: File.join(@dir, "config.ru"))
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
