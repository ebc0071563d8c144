# frozen_string_literal: true

require_relative "../agent/switches"
require_relative "job_worker"

module Mallard
  module Target
    # What the workers of job backends that keep their queues in Redis (Sidekiq, Resque) share: each run gets a fresh
    # Redis of its own (RedisServer) unless --redis names one, and REDIS_URL tells the worker and the workload where it
    # is; the workload pushes with the backend's own client; the worker is up once it has registered in Redis, matched
    # by PID to the worker's own process tree, so a stale entry in a shared Redis cannot pass for it.
    #
    # A worker calls #settle in its constructor and defines backend_name, jobs_switch, client_library,
    # registered_pids (the PIDs the backend lists as its workers in Redis) and worker_variables (what its command
    # reads from its environment).
    module RedisJobWorker
      include JobWorker

      # Starts this run's Redis first: the worker connects at boot.
      def command(env:, run_dir:)
        @redis.start(run_dir)
        @user.prepare(run_dir)
        @connection = Probe::RedisConnection.new(@redis.url)
        @env = env
        worker_env = env.merge(worker_variables, @user.env,
                               { "REDIS_URL" => @redis.url, Agent::Switches::JOBS => jobs_switch })
        @process = Command.new(@argv, env: worker_env, log_path: run_dir.file("subject.log"), chdir: @dir,
                                      spawn_options: @user.spawn_options)
      end

      # The workload pushes with the backend's client, through the app's bundle when it has one.
      def workload_argv(path)
        ruby = ["ruby", "-r#{client_library}", path]
        gemfile? ? ["bundle", "exec", *ruby] : ruby
      end

      def stats_hint = @redis.own? ? "see redis.log" : "is that Redis up?"

      def ready?
        tree = Probe::ProcessTree.pids(@process.pid)
        registered_pids.any? { |pid| tree.include?(pid) }
      rescue Probe::RedisConnection::Failed
        false
      end

      # The run is over: its own Redis goes with it.
      def release
        @connection&.close
        @redis.stop
      end

      private

      def described_details = [Workload::Jobs.source(@workload_path), @redis.describe, @user.describe]

      # @raise [NotFound] a missing workload or app directory
      def settle(workload:, redis:, dir:, user:)
        @dir = File.expand_path(dir || Dir.pwd)
        @workload_path = workload && File.expand_path(workload)
        @redis = redis
        @user = user
        if @workload_path && !File.file?(@workload_path)
          raise NotFound, "no workload at #{@workload_path} (--workload FILE.rb)"
        end
        raise NotFound, "no directory #{@dir}" unless File.directory?(@dir)
      end

      def gemfile? = File.file?(File.join(@dir, "Gemfile"))
    end
  end
end
