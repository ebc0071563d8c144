# frozen_string_literal: true

require_relative "../agent/switches"

module Mallard
  module Target
    # A Sidekiq process under a job mix: `-- CMD` (`sidekiq -r ./jobs.rb -c 20`, `bundle exec sidekiq`) or, in an
    # app directory with a Gemfile, `bundle exec sidekiq -c THREADS`. Each run gets a fresh Redis of its own
    # (RedisServer) unless --redis names one; REDIS_URL tells the worker and the workload where it is.
    #
    # The worker is up once it has registered its process in Redis (Sidekiq's heartbeat, "processes"), matched by
    # PID to the worker's own process tree, so a stale entry in a shared Redis cannot pass for it.
    class SidekiqWorker
      MAX_THREADS = 1024
      DEFAULT_THREADS = 10

      attr_reader :dir, :workload_path

      # @param workload [String, nil] the script that pushes jobs; nil for soak --idle
      # @param command [Array<String>, nil] the worker's command line; nil for `bundle exec sidekiq -c THREADS`
      # @param redis [RedisServer, RedisServer::Existing]
      # @raise [UsageError, NotFound] a missing workload, app directory or Gemfile, or threads out of range
      def initialize(workload:, redis:, dir: nil, command: nil, threads: nil, user: SubjectUser::Same)
        @dir = File.expand_path(dir || Dir.pwd)
        @workload_path = workload && File.expand_path(workload)
        @redis = redis
        @user = user
        if @workload_path && !File.file?(@workload_path)
          raise NotFound, "no workload at #{@workload_path} (--workload FILE.rb)"
        end
        raise NotFound, "no directory #{@dir}" unless File.directory?(@dir)

        @argv = command || default_command(threads)
      end

      def kind = "sidekiq"
      def url = nil
      # Its jobs are counted by mallard's agent inside the worker: without it there is nothing to measure.
      def measurable_without_agent? = false
      # The worker's command (sidekiq -r …) loads the app as it will: mallard has no place in it for a line to run
      # after boot.
      def after_boot? = false

      # Its process tree is its own to shape: compare --shape is refused for it.
      def shapes? = false

      # Scrubbed for meta.json and summaries; the command run keeps its bytes.
      def describe
        details = [Workload::Jobs.source(@workload_path), @redis.describe, @user.describe].compact
        "#{@argv.map { |arg| Text.scrub(arg) }.join(' ')} in #{Text.scrub(@dir)} (Sidekiq, #{details.join(', ')})"
      end

      # Starts this run's Redis first: the worker connects at boot.
      def command(env:, run_dir:)
        @redis.start(run_dir)
        @user.prepare(run_dir)
        @connection = Probe::RedisConnection.new(@redis.url)
        worker_env = env.merge(@user.env, "REDIS_URL" => @redis.url, Agent::Switches::JOBS => "on")
        @process = Command.new(@argv, env: worker_env, log_path: run_dir.file("subject.log"), chdir: @dir,
                                      spawn_options: @user.spawn_options)
      end

      def workload(options:, run_dir:, samples:, clock:, agent_log:)
        Workload::Jobs.new(path: @workload_path, dir: @dir, backend: self, options: options, run_dir: run_dir,
                           samples: samples, clock: clock, agent_log: agent_log)
      end

      # The workload pushes with Sidekiq's client, through the app's bundle when it has one.
      def workload_argv(path)
        ruby = ["ruby", "-rsidekiq", path]
        File.file?(File.join(@dir, "Gemfile")) ? ["bundle", "exec", *ruby] : ruby
      end

      def workload_env = { "REDIS_URL" => @redis.url }

      # The queues as Sidekiq keeps them in Redis, on a connection of the workload's own.
      def open_stats = Probe::SidekiqStats.new(Probe::RedisConnection.new(@redis.url))

      def stats_hint = @redis.own? ? "see redis.log" : "is that Redis up?"

      def ready?
        tree = Probe::ProcessTree.pids(@process.pid)
        # An identity is "hostname:pid:nonce" (Sidekiq 6 to 8).
        Array(@connection.call("SMEMBERS", "processes")).any? { |identity| tree.include?(identity.split(":")[-2].to_i) }
      rescue Probe::RedisConnection::Failed
        false
      end

      def waiting_for
        "the worker never registered in Redis at #{@redis.url} (Sidekiq does once it has booted)"
      end

      # The run is over: its own Redis goes with it.
      def release
        @connection&.close
        @redis.stop
      end

      private

      def default_command(threads)
        unless File.file?(File.join(@dir, "Gemfile"))
          raise UsageError, "no Gemfile in #{@dir}: give the worker's command after --, " \
                            "e.g. -- sidekiq -r ./jobs.rb -c 20"
        end

        count = threads || DEFAULT_THREADS
        unless count.between?(1, MAX_THREADS)
          raise UsageError, "--threads must be between 1 and #{MAX_THREADS}, not #{count}"
        end

        ["bundle", "exec", "sidekiq", "-c", count.to_s]
      end
    end
  end
end
