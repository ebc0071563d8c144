# frozen_string_literal: true

require_relative "redis_job_worker"

module Mallard
  module Target
    # A Sidekiq process under a job mix: `-- CMD` (`sidekiq -r ./jobs.rb -c 20`, `bundle exec sidekiq`) or, in an
    # app directory with a Gemfile, `bundle exec sidekiq -c THREADS`. Each run gets a fresh Redis of its own
    # (RedisServer) unless --redis names one; REDIS_URL tells the worker and the workload where it is.
    #
    # The worker is up once it has registered its process in Redis (Sidekiq's heartbeat, "processes"), matched by
    # PID to the worker's own process tree, so a stale entry in a shared Redis cannot pass for it.
    class SidekiqWorker
      include RedisJobWorker

      MAX_THREADS = 1024
      DEFAULT_THREADS = 10

      # @param workload [String, nil] the script that pushes jobs; nil for soak --idle
      # @param command [Array<String>, nil] the worker's command line; nil for `bundle exec sidekiq -c THREADS`
      # @param redis [RedisServer, RedisServer::Existing]
      # @raise [UsageError, NotFound] a missing workload, app directory or Gemfile, or threads out of range
      def initialize(workload:, redis:, dir: nil, command: nil, threads: nil, user: SubjectUser::Same)
        settle(workload: workload, redis: redis, dir: dir, user: user)
        @argv = command || default_command(threads)
      end

      def kind = "sidekiq"

      def workload_env = { "REDIS_URL" => @redis.url }

      # The queues as Sidekiq keeps them in Redis, on a connection of the workload's own.
      def open_stats = Probe::SidekiqStats.new(Probe::RedisConnection.new(@redis.url))

      def waiting_for
        "the worker never registered in Redis at #{@redis.url} (Sidekiq does once it has booted)"
      end

      private

      def backend_name = "Sidekiq"
      def client_library = "sidekiq"
      def jobs_switch = "on"
      def worker_variables = {}

      # An identity is "hostname:pid:nonce" (Sidekiq 6 to 8).
      def registered_pids
        Array(@connection.call("SMEMBERS", "processes")).map { |identity| identity.split(":")[-2].to_i }
      end

      def default_command(threads)
        unless gemfile?
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
