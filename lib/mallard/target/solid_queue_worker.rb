# frozen_string_literal: true

require_relative "../agent/switches"

module Mallard
  module Target
    # A Solid Queue worker in fork mode, started as its users start it: the app's `bin/jobs` (SolidQueue::Cli) in
    # DIR, or `-- CMD`; its supervisor forks a dispatcher, the workers and (with recurring tasks) a scheduler, as
    # the app's config/queue.yml says. Each run gets a fresh SQLite store of its own (SolidQueueStore), made by the
    # app's `bin/rails db:prepare` and removed with the run.
    #
    # The worker is up once every process of its tree has registered in solid_queue_processes, a worker among
    # them, matched by PID, so rows left by another supervisor cannot pass for it.
    class SolidQueueWorker
      COMMAND = ["bin/jobs"].freeze
      PROCESSES = "SELECT pid, kind FROM solid_queue_processes"

      attr_reader :dir, :workload_path

      # @param command [Array<String>, nil] the worker's command line; nil for bin/jobs
      # @raise [NotFound] a missing workload, app directory, bin/jobs or bin/rails
      def initialize(workload:, dir: nil, command: nil, user: SubjectUser::Same)
        @dir = File.expand_path(dir || Dir.pwd)
        @workload_path = File.expand_path(workload)
        @user = user
        raise NotFound, "no workload at #{@workload_path} (--workload FILE.rb)" unless File.file?(@workload_path)
        raise NotFound, "no directory #{@dir}" unless File.directory?(@dir)

        @argv = command || COMMAND
        check_app!(command)
      end

      def kind = "solid_queue"
      def url = nil
      # Its jobs are counted by mallard's agent inside each worker process: without it there is nothing to measure.
      def measurable_without_agent? = false
      def after_boot? = false
      def shapes? = false

      # Scrubbed for meta.json and summaries; the command run keeps its bytes.
      def describe
        details = ["jobs from #{File.basename(@workload_path)}", SolidQueueStore::DESCRIPTION, @user.describe].compact
        "#{@argv.map { |arg| Text.scrub(arg) }.join(' ')} in #{Text.scrub(@dir)} (Solid Queue, #{details.join(', ')})"
      end

      # Makes this run's store first: the worker connects at boot.
      def command(env:, run_dir:)
        @user.prepare(run_dir)
        @store = SolidQueueStore.new(run_dir.file("queue-store"))
        @env = env.merge(@store.env)
        @store.create(dir: @dir, env: unmeasured(env), user: @user, log_path: run_dir.file("setup.log"))
        worker_env = @env.merge(@user.env, Agent::Switches::JOBS => Agent::Switches::ACTIVE_JOB)
        @process = Command.new(@argv, env: worker_env, log_path: run_dir.file("subject.log"), chdir: @dir,
                                      spawn_options: @user.spawn_options)
      end

      def workload(options:, run_dir:, samples:, clock:, agent_log:)
        Workload::Jobs.new(path: @workload_path, dir: @dir, backend: self, options: options, run_dir: run_dir,
                           samples: samples, clock: clock, agent_log: agent_log)
      end

      # The workload enqueues through the app's own Active Job, on the app's Ruby, into this run's store.
      def workload_argv(path) = ["ruby", path]
      def workload_env = @env.slice("PATH", "GEM_HOME", "GEM_PATH", *@store.env.keys)
      def open_stats = Probe::SolidQueueStats.new(@store)
      def stats_hint = "see setup.log and subject.log"

      def ready?
        tree = Probe::ProcessTree.pids(@process.pid)
        registered = @store.query(PROCESSES).select { |pid, _| tree.include?(pid.to_i) }
        registered.size == tree.size && registered.any? { |_, kind| kind == "Worker" }
      rescue SolidQueueStore::Failed
        false
      end

      def waiting_for
        "its processes never all registered in solid_queue_processes (Solid Queue's supervisor, dispatcher and " \
          "workers do once they have booted)"
      end

      # The run is over: its store goes with it.
      def release
        @store&.remove
      end

      private

      def check_app!(command)
        unless command || app_file?("bin/jobs")
          raise NotFound, "no bin/jobs in #{@dir}: give the worker's command after --"
        end
        return if app_file?("bin/rails")

        raise NotFound, "no bin/rails in #{@dir}: mallard makes the run's queue database with bin/rails db:prepare"
      end

      def app_file?(name) = File.file?(File.join(@dir, name))

      # The setup is not what is measured: no agent, no preloaded allocator.
      def unmeasured(env)
        env.merge("RUBYOPT" => nil, "MALLARD_AGENT_OUT" => nil, "LD_PRELOAD" => nil)
      end
    end
  end
end
