# frozen_string_literal: true

module Mallard
  module Probe
    # The shape Pitchfork's process tree really has, read from outside, as Probe::PumaTree reads Puma's (compare
    # --shape's -pitchfork rows): the monitor (the root) loads nothing; a mold loads the app and forks the workers,
    # which Pitchfork re-parents to the monitor (a child subreaper), so every process is in the root's tree.
    # - workers and molds: the processes Pitchfork titled "pitchfork (gen:0) worker[1] - …" and "pitchfork (gen:1)
    #   mold - …" ($0, so /proc/PID/cmdline);
    # - reforks: the molds after the first, by the monitor's own log line "mold gen=1 pid=4242 ready" (a mold's
    #   generation counts its reforks; the first mold is generation 0).
    # Each worker serves one request at a time, so there is no pool of threads to count.
    module PitchforkTree
      WORKER_TITLE = /\(gen:\d+\) worker\[\d+\]/
      MOLD_TITLE = /\(gen:\d+\) mold/
      MOLD_READY = /mold gen=(\d+) pid=\d+ ready/

      module_function

      # @param root [Integer] the monitor's PID
      # @param log_path [String] Pitchfork's output
      # @return [Hash] workers: Integer, molds: Integer, reforks: Integer, pids: [Integer] (every process of the tree)
      def read(root, log_path:, proc_root: "/proc")
        pids = ProcessTree.pids(root, proc_root: proc_root)
        titles = pids.map { |pid| PumaTree.title(pid, proc_root) }
        { workers: titles.count { |title| title.match?(WORKER_TITLE) },
          molds: titles.count { |title| title.match?(MOLD_TITLE) }, reforks: reforks(log_path), pids: pids }
      end

      # Reforks so far: the generations of the molds the monitor said were ready, the first aside.
      def reforks(log_path)
        File.foreach(log_path).filter_map { |line| line[MOLD_READY, 1] }.uniq.count { |generation| generation != "0" }
      rescue SystemCallError
        0
      end

      # What the tree read shows against the shape asked for; nil when it matches.
      # @param shape [PumaShape] a -pitchfork one
      # @param seen [Hash] #read's
      # @return [String, nil]
      def mismatch(shape, seen)
        problems = []
        problems << "#{seen[:workers]} workers, not #{shape.workers}" if seen[:workers] != shape.workers
        problems << "no mold to fork workers from" if seen[:molds].zero?
        "the Pitchfork tree is not #{shape.label}: #{problems.join('; ')}" if problems.any?
      end
    end
  end
end
