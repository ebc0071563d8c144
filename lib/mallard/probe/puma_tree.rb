# frozen_string_literal: true

module Mallard
  module Probe
    # The shape Puma's process tree really has, read from outside (compare --shape checks each row's against the
    # PumaShape it asked for before the row counts):
    # - workers: the processes under the root that Puma titled "puma: cluster worker N: MASTER" ($0, so
    #   /proc/PID/cmdline), none in single mode;
    # - threads: in each process that serves (each worker, or the single process), the threads Puma's pool named
    #   "puma srv tp 001"… (Puma.set_thread_name, which Ruby passes to the kernel: /proc/PID/task/TID/comm). The pool
    #   is started at its minimum and mallard runs it at min = max, so each serving process has exactly T of them
    #   once it is up; the reactor's and Ruby's own threads are not counted;
    # - preloaded: Puma's own word, the "* Preloading application" its master logs before it loads the app to fork
    #   from. Ruby reads the app's files rather than mapping them, so /proc shows no file that would say whether the
    #   master loaded the app; memory would, but only as a figure that depends on the app. The log is the master's
    #   own state, and it catches an app whose config/puma.rb says preload_app! when a row asked for no preload.
    module PumaTree
      WORKER_TITLE = /\Apuma: cluster worker \d+:/
      POOL_THREAD = /\Apuma srv tp \d+/
      PRELOADING = "* Preloading application"

      module_function

      # @param root [Integer] the Puma master's PID (the single process's in single mode)
      # @param log_path [String] Puma's output, where the master says it preloads
      # @return [Hash] workers: Integer, threads: [Integer] (per serving process), preloaded: Boolean,
      #   pids: [Integer] (every process of the tree)
      def read(root, log_path:, proc_root: "/proc")
        pids = ProcessTree.pids(root, proc_root: proc_root)
        workers = pids.select { |pid| title(pid, proc_root).match?(WORKER_TITLE) }
        serving = workers.empty? ? [root] : workers
        { workers: workers.size, threads: serving.map { |pid| pool_threads(pid, proc_root) },
          preloaded: preloading?(log_path), pids: pids }
      end

      # What the tree read shows against the shape asked for; nil when it matches.
      # @param shape [PumaShape]
      # @param seen [Hash] #read's
      # @return [String, nil]
      def mismatch(shape, seen)
        problems = []
        problems << "#{seen[:workers]} workers, not #{shape.workers}" if seen[:workers] != shape.workers
        wrong = seen[:threads].reject { |count| count == shape.threads }
        problems << "pool threads per process #{seen[:threads].join(', ')}, not #{shape.threads}" if wrong.any?
        problems << preload_problem(seen[:preloaded]) if seen[:preloaded] != shape.preloaded?
        "the Puma tree is not #{shape.label}: #{problems.join('; ')}" if problems.any?
      end

      def preload_problem(preloaded)
        return "the master did not preload the app (Puma never logged \"#{PRELOADING}\")" unless preloaded

        "the master preloaded the app (Puma logged \"#{PRELOADING}\"; does the app's config/puma.rb say preload_app!?)"
      end

      def title(pid, proc_root)
        File.read(File.join(proc_root, pid.to_s, "cmdline")).tr("\0", " ")
      rescue SystemCallError
        ""
      end

      def pool_threads(pid, proc_root)
        tasks = File.join(proc_root, pid.to_s, "task")
        Dir.children(tasks).count do |tid|
          File.read(File.join(tasks, tid, "comm")).match?(POOL_THREAD)
        rescue SystemCallError
          false # a thread that ended as it was read
        end
      rescue SystemCallError
        0
      end

      def preloading?(log_path)
        File.foreach(log_path).any? { |line| line.include?(PRELOADING) }
      rescue SystemCallError
        false
      end
    end
  end
end
