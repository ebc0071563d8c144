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
    #   own state, and it catches an app whose config/puma.rb says preload_app! when a row asked for no preload;
    # - forked_from_first: under fork_worker (a -refork shape), whether every other worker is a child of worker 0
    #   rather than of the master, which is what fork_worker changes in the tree (its preloading is Puma's to decide,
    #   PumaShape says why, so it is read but not judged);
    # - reforks: how many times Puma began forking the workers again from worker 0 so far, by its own log line ("-
    #   Starting worker refork, phase: 1" from Puma 6; Puma 5 words a refork as a phased restart, which nothing else
    #   starts in a run of mallard's). Read again when the run ends, as a row's reforks seen.
    module PumaTree
      WORKER_TITLE = /\Apuma: cluster worker (\d+):/
      POOL_THREAD = /\Apuma srv tp \d+/
      PRELOADING = "* Preloading application"
      REFORK = /- Starting (?:worker refork|phased worker restart), phase: \d+/

      module_function

      # @param root [Integer] the Puma master's PID (the single process's in single mode)
      # @param log_path [String] Puma's output, where the master says it preloads
      # @return [Hash] workers: Integer, threads: [Integer] (per serving process), preloaded: Boolean,
      #   forked_from_first: Boolean, reforks: Integer, pids: [Integer] (every process of the tree)
      def read(root, log_path:, proc_root: "/proc")
        pids = ProcessTree.pids(root, proc_root: proc_root)
        workers = pids.to_h { |pid| [pid, title(pid, proc_root)[WORKER_TITLE, 1]] }.compact
        serving = workers.empty? ? [root] : workers.keys
        { workers: workers.size, threads: serving.map { |pid| pool_threads(pid, proc_root) },
          preloaded: preloading?(log_path), forked_from_first: forked_from_first?(workers, proc_root),
          reforks: reforks(log_path), pids: pids }
      end

      # Reforks Puma began, by its log so far.
      def reforks(log_path)
        File.foreach(log_path).count { |line| line.match?(REFORK) }
      rescue SystemCallError
        0
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
        problems << preload_problem(seen[:preloaded]) if !shape.fork_worker? && seen[:preloaded] != shape.preloaded?
        if shape.fork_worker? && !seen[:forked_from_first]
          problems << "the workers are not children of worker 0 (did Puma take --fork-worker?)"
        end
        "the Puma tree is not #{shape.label}: #{problems.join('; ')}" if problems.any?
      end

      def preload_problem(preloaded)
        return "the master did not preload the app (Puma never logged \"#{PRELOADING}\")" unless preloaded

        "the master preloaded the app (Puma logged \"#{PRELOADING}\"; does the app's config/puma.rb say preload_app!?)"
      end

      # Workers 1… as children of worker 0: false without a worker 0, or with no other worker.
      # @param workers [Hash{Integer=>String}] PID => index
      def forked_from_first?(workers, proc_root)
        first = workers.key("0")
        others = workers.keys - [first]
        return false if first.nil? || others.empty?

        (others - ProcessTree.children_of(first, proc_root)).empty?
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
