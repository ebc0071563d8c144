# frozen_string_literal: true

require_relative "active_job_worker"

module Mallard
  module Target
    # A GoodJob worker, started as its users start it: the app's `good_job start` (GoodJob's CLI: here `bin/good_job
    # start`, a binstub of it) in DIR, or `-- CMD`. It runs its jobs on threads of its one process, as the app's
    # configuration says (config.good_job: its queues and threads; --threads is refused). Each run gets a PostgreSQL
    # server of its own (PostgresServer), named to the app by DATABASE_URL, its tables made by the app's `bin/rails
    # db:prepare` (GoodJob's migration, in the app's schema), and removed with the run.
    #
    # The worker is up once its process has registered in good_job_processes (GoodJob writes its PID into the row's
    # state once its capsule has started), matched by PID to the tree mallard started.
    class GoodJobWorker
      include ActiveJobWorker

      COMMAND = %w[bin/good_job start].freeze
      PROCESSES = "SELECT state->>'pid' FROM good_job_processes"

      # @param workload [String, nil] the script that pushes jobs; nil for soak --idle
      # @param server [PostgresServer] the run's store, started with the run
      # @param command [Array<String>, nil] the worker's command line; nil for bin/good_job start
      # @raise [NotFound] a missing workload, app directory, bin/good_job or bin/rails
      def initialize(workload:, server:, dir: nil, command: nil, user: SubjectUser::Same)
        locate(dir, workload)
        @server = server
        @user = user
        @argv = command || COMMAND
        check_app!(command, COMMAND.first)
      end

      def kind = "good_job"
      def backend_name = "GoodJob"
      def store_description = PostgresServer::DESCRIPTION
      def described_mode = nil

      # Starts this run's server first, and makes its tables: the worker connects at boot. The server is the store
      # before it is up, so a failed start is still removed with the run.
      def command(env:, run_dir:)
        @user.prepare(run_dir)
        @store = @server
        @server.start(run_dir)
        prepare_store(env, run_dir)
        @process = Command.new(@argv, env: worker_env(env), log_path: run_dir.file("subject.log"), chdir: @dir,
                                      spawn_options: @user.spawn_options)
      end

      def open_stats = Probe::GoodJobStats.new(@store)

      def ready?
        tree = Probe::ProcessTree.pids(@process.pid)
        @store.query(PROCESSES).any? { |(pid)| tree.include?(pid.to_i) }
      rescue PostgresServer::Failed
        false
      end

      def waiting_for
        "the worker never registered in good_job_processes (GoodJob does once its capsule has started)"
      end
    end
  end
end
