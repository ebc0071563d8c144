# frozen_string_literal: true

require_relative "active_job_worker"

module Mallard
  module Target
    # A Solid Queue worker in fork mode, started as its users start it: the app's `bin/jobs` (SolidQueue::Cli) in
    # DIR, or `-- CMD`; its supervisor forks a dispatcher, the workers and (with recurring tasks) a scheduler, as
    # the app's config/queue.yml says. In puma mode it is the app's Puma instead (SolidQueuePuma), which forks the
    # supervisor once it has booted. Each run gets a fresh SQLite store of its own (SolidQueueStore), made by the
    # app's `bin/rails db:prepare` and removed with the run.
    #
    # The worker is up once every process of its tree has registered in solid_queue_processes, a worker among
    # them, matched by PID, so rows left by another supervisor cannot pass for it. In a mode of `compare --modes`
    # (SolidQueueMode) it is up once its tree is also the mode's, read from outside; a tree still unlike it
    # MODE_GRACE after every process registered fails the run with what it is. Puma registers nothing: in puma mode
    # it is up once the processes under it have registered.
    class SolidQueueWorker
      include ActiveJobWorker

      COMMAND = ["bin/jobs"].freeze
      PROCESSES = "SELECT pid, kind FROM solid_queue_processes"
      # Long enough for a fork supervisor to fork the rest once the first have registered.
      MODE_GRACE = 10

      # @param workload [String, nil] the script that pushes jobs; nil for soak --idle
      # @param command [Array<String>, nil] the worker's command line; nil for bin/jobs
      # @param mode [SolidQueueMode, nil] the mode it is started in (compare --modes); nil: as the app starts it
      # @param modes [Array<SolidQueueMode>, nil] a comparison's modes, for its description
      # @raise [NotFound] a missing workload, app directory, bin/jobs or bin/rails; in puma mode, the app's Puma
      #   config loading no Solid Queue (SolidQueuePuma)
      def initialize(workload:, dir: nil, command: nil, user: SubjectUser::Same, mode: nil, modes: nil)
        locate(dir, workload)
        @user = user
        @command = command
        @mode = mode
        @modes = modes
        @puma = SolidQueuePuma.new(@dir, command) if mode&.puma?
        @argv = @puma&.argv || command || (COMMAND + (mode ? mode.arguments : []))
        check_app!(@puma ? @argv : command, COMMAND.first) # Puma needs no bin/jobs
      end

      # The same worker in a mode (compare --modes' rows), started as its users start that mode: bin/jobs --mode, or the
      # app's Puma (SolidQueuePuma).
      # @param mode [SolidQueueMode]
      def shaped(mode) = rebuilt(mode: mode)

      # The worker as a comparison of modes runs it: described by its modes. Each mode's worker is made once here, so a
      # mode the app cannot be started in (puma without Solid Queue's plugin) is refused before any row runs.
      def in_modes(modes)
        modes.each { |mode| shaped(mode) }
        rebuilt(modes: modes)
      end

      # Every mode runs wherever Solid Queue does.
      def shape_refusal(_mode, _ruby) = nil
      def reforks = nil

      def kind = "solid_queue"
      def backend_name = "Solid Queue"
      def store_description = SolidQueueStore::DESCRIPTION

      def described_mode
        return "in modes #{@modes.map(&:label).join(', ')}" if @modes

        "inside Puma, #{SolidQueueMode::IN_PUMA}=1" if @puma
      end

      # Makes this run's store first: the worker connects at boot.
      def command(env:, run_dir:)
        @user.prepare(run_dir)
        @store = SolidQueueStore.new(run_dir.file("queue-store")).create(@user)
        prepare_store(env, run_dir)
        subject_env = worker_env(env)
        subject_env.merge!(@mode.env) if @mode
        subject_env.merge!(@puma.env(run_dir)) if @puma
        argv = @puma&.argv || @argv # Puma's bound to the port it was given
        @process = Command.new(argv, env: subject_env, log_path: run_dir.file("subject.log"), chdir: @dir,
                                     spawn_options: @user.spawn_options)
      end

      def open_stats = Probe::SolidQueueStats.new(@store)

      # @raise [SubjectFailed] the tree is not its mode's MODE_GRACE after every process registered
      def ready?
        tree = Probe::ProcessTree.pids(@process.pid)
        kinds = registered(tree)
        up = ((@mode ? @mode.registering(tree) : tree) - kinds.keys).empty? && kinds.values.flatten.include?("Worker")
        up && (@mode.nil? || in_its_mode?(tree, kinds))
      rescue SolidQueueStore::Failed
        false
      end

      def waiting_for
        puma = ", under Puma once it has booted with #{SolidQueueMode::IN_PUMA} set" if @puma
        "its processes never all registered in solid_queue_processes (Solid Queue's supervisor, dispatcher and " \
          "workers do once they have booted#{puma})"
      end

      private

      def rebuilt(**mode)
        SolidQueueWorker.new(workload: @workload_path, dir: @dir, command: @command, user: @user, **mode)
      end

      # The kinds each process of the tree registered (async mode's one process registers each of its parts).
      def registered(tree)
        rows = @store.query(PROCESSES).select { |pid, _| tree.include?(pid.to_i) }
        rows.group_by { |pid, _| pid.to_i }.transform_values { |pairs| pairs.map(&:last) }
      end

      def in_its_mode?(tree, kinds)
        @mode_seen_up ||= Clock.monotonic
        problem = @mode.mismatch(tree, kinds)
        return true unless problem
        raise SubjectFailed, problem if Clock.monotonic - @mode_seen_up > MODE_GRACE

        false
      end
    end
  end
end
