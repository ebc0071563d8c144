# frozen_string_literal: true

require_relative "../agent/switches"
require_relative "job_worker"

module Mallard
  module Target
    # What the workers of Active Job backends that keep their queues in a database (Solid Queue, GoodJob) share: an app
    # directory with its own bin/rails, a store of the run's own made by the app's `bin/rails db:prepare` and removed
    # with the run, a workload run on the app's Ruby that enqueues through the app's Active Job, and jobs counted by the
    # agent's Active Job hook inside the worker. A worker sets @argv and @user, names itself (#backend_name,
    # #store_description, #described_mode) and sets @store (#env, #remove) when it starts.
    module ActiveJobWorker
      SETUP = %w[bin/rails db:prepare].freeze
      SETUP_TIMEOUT = 120

      include JobWorker

      # The workload enqueues through the app's own Active Job, on the app's Ruby, into this run's store.
      def workload_argv(path) = ["ruby", path]
      def workload_env = @env.slice("PATH", "GEM_HOME", "GEM_PATH", *@store.env.keys)
      def stats_hint = "see setup.log and subject.log"

      # The run is over: its store goes with it.
      def release
        @store&.remove
      end

      private

      def described_details
        [*described_mode, Workload::Jobs.source(@workload_path), store_description, @user.describe]
      end

      # @raise [NotFound] a missing workload or app directory
      def locate(dir, workload)
        @dir = File.expand_path(dir || Dir.pwd)
        @workload_path = workload && File.expand_path(workload)
        if @workload_path && !File.file?(@workload_path)
          raise NotFound, "no workload at #{@workload_path} (--workload FILE.rb)"
        end
        raise NotFound, "no directory #{@dir}" unless File.directory?(@dir)
      end

      # @param binstub [String] the worker's own command in the app ("bin/jobs"), needed without -- CMD
      # @raise [NotFound]
      def check_app!(command, binstub)
        unless command || app_file?(binstub)
          raise NotFound, "no #{binstub} in #{@dir}: give the worker's command after --"
        end
        return if app_file?("bin/rails")

        raise NotFound, "no bin/rails in #{@dir}: mallard makes the run's queue database with bin/rails db:prepare"
      end

      def app_file?(name) = File.file?(File.join(@dir, name))

      # The app's own `bin/rails db:prepare` against this run's store, as the subject's user, unmeasured.
      # @raise [SubjectFailed] with its last lines (setup.log)
      def prepare_store(env, run_dir)
        Command.new(SETUP, env: unmeasured(env).merge(@store.env), log_path: run_dir.file("setup.log"), chdir: @dir,
                           spawn_options: @user.spawn_options)
               .run!(timeout: SETUP_TIMEOUT, what: "make the queue database")
      end

      # The worker's environment: the store, the user's, and the agent's Active Job hook.
      def worker_env(env)
        @env = env.merge(@store.env)
        @env.merge(@user.env, Agent::Switches::JOBS => Agent::Switches::ACTIVE_JOB)
      end

      # The setup is not what is measured: no agent, no preloaded allocator.
      def unmeasured(env)
        env.merge("RUBYOPT" => nil, "MALLARD_AGENT_OUT" => nil, "LD_PRELOAD" => nil)
      end
    end
  end
end
