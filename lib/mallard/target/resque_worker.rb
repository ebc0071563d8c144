# frozen_string_literal: true

require_relative "redis_job_worker"

module Mallard
  module Target
    # A Resque worker, started as its users start it: `QUEUE=* rake resque:work` in the app directory (its Rakefile
    # requiring 'resque/tasks'; through `bundle exec` with a Gemfile), or `-- CMD`. Its parent takes each job from
    # Redis and forks a child that runs it and exits. Each run gets a fresh Redis of its own (RedisServer) unless
    # --redis names one; the app points Resque at REDIS_URL (`Resque.redis = ENV["REDIS_URL"]`), as Resque reads no
    # variable of its own for it.
    #
    # The worker is up once its parent has registered in Redis (the set resque:workers), matched by PID.
    class ResqueWorker
      include RedisJobWorker

      TASK = %w[rake resque:work].freeze
      # What `rake resque:work` reads, where the user's environment does not set it: every queue, and a poll of the
      # queues every 0.1 s when they are empty (Resque's default, 5 s, would leave a steady load's jobs waiting in
      # bursts).
      VARIABLES = { "QUEUE" => "*", "INTERVAL" => "0.1" }.freeze

      # @param workload [String, nil] the script that pushes jobs; nil for soak --idle
      # @param command [Array<String>, nil] the worker's command line; nil for `rake resque:work`
      # @param redis [RedisServer, RedisServer::Existing]
      # @raise [NotFound] a missing workload, app directory or Rakefile
      def initialize(workload:, redis:, dir: nil, command: nil, user: SubjectUser::Same)
        settle(workload: workload, redis: redis, dir: dir, user: user)
        @argv = command || default_command
      end

      def kind = "resque"

      # The workload pushes on the app's Ruby (where Resque is), into this run's Redis.
      def workload_env = @env.slice("PATH", "GEM_HOME", "GEM_PATH").merge("REDIS_URL" => @redis.url)

      # The queues as Resque keeps them in Redis, on a connection of the workload's own.
      def open_stats = Probe::ResqueStats.new(Probe::RedisConnection.new(@redis.url))

      def waiting_for
        "the worker never registered in Redis at #{@redis.url} (Resque does once it has booted: does the app set " \
          "Resque.redis = ENV[\"REDIS_URL\"]?)"
      end

      private

      def backend_name = "Resque"
      def client_library = "resque"
      def jobs_switch = Agent::Switches::RESQUE
      def worker_variables = VARIABLES.reject { |name, _| ENV.key?(name) }

      # A worker's id is "hostname:pid:queues", under Resque's namespace.
      def registered_pids
        Array(@connection.call("SMEMBERS", "resque:workers")).map { |id| id.split(":")[1].to_i }
      end

      def default_command
        unless File.file?(File.join(@dir, "Rakefile"))
          raise NotFound, "no Rakefile in #{@dir}: give the worker's command after --, e.g. -- rake resque:work"
        end

        gemfile? ? ["bundle", "exec", *TASK] : TASK
      end
    end
  end
end
