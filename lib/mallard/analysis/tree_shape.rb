# frozen_string_literal: true

module Mallard
  module Analysis
    # What a server's process tree is, from Probe::TreeReading's readings: each process's role by the title its
    # server gave it, the workers and their threads, and what the tree holds shared and apart. Pure.
    module TreeShape
      # "resque-3.2.0: Waiting for *", "resque-3.2.0: Forked 4243 at 1764300000" (its parent), "resque-3.2.0:
      # Processing default since 1764300000 [SmallJob]" (a child, forked per job, keeps the title its parent had): the
      # parent is the one at the root.
      RESQUE = /\Aresque-\d[^:]*: /
      SERVERS = { "puma" => /\Apuma[: ]/, "pitchfork" => /\Apitchfork\b/, "solid_queue" => /\Asolid-queue-/,
                  "resque" => RESQUE }.freeze
      # "puma: cluster worker 0: 4242 [app]", "pitchfork (gen:0) worker[0] - ready"
      WORKER = /\bworker(?:\[| )(\d+)/
      MOLD = /\bmold\b/
      # "solid-queue-fork-supervisor(1.7.2): supervising 4242, 4243", "solid-queue-worker(1.7.2): waiting for jobs":
      # every Solid Queue process says its role, the root included.
      SOLID_QUEUE = /\Asolid-queue-(?:fork-|async-)?(supervisor|dispatcher|scheduler|worker)\b/

      module_function

      # @param readings [Array<Hash>] Probe::TreeReading.read's, the root first
      # @return [Summary::TreeShape, nil] nil when there is no tree (the root alone)
      def call(readings)
        return if readings.size < 2

        hosting = hosts_jobs?(readings.map { |reading| reading[:title] })
        processes = readings.each_with_index.map { |reading, index| process(reading, index.zero?, hosting) }
        workers = processes.select { |process| process.role.start_with?("worker") }
        build(processes, workers, server(readings.first[:title]))
      end

      def build(processes, workers, server)
        pss, uss = %i[pss_kb uss_kb].map { |key| processes.sum(&key) }
        Summary::TreeShape.new(server: server, workers: workers.size, threads: workers.map(&:pool_threads),
                               pss_kb: pss, uss_kb: uss, shared_kb: pss - uss,
                               worker_uss_kb: Statistics.median(workers.map(&:uss_kb))&.round,
                               worker_shared_pct: Statistics.median(workers.map(&:shared_pct))&.round(1),
                               processes: processes)
      end

      def process(reading, root, hosting)
        memory = reading[:memory]
        shared = memory[:rss_kb] - memory[:uss_kb]
        Summary::TreeProcess.new(pid: reading[:pid], parent: reading[:parent],
                                 role: role(reading[:title], root, hosts_jobs: hosting),
                                 title: reading[:title], pool_threads: reading[:pool_threads],
                                 rss_kb: memory[:rss_kb], pss_kb: memory[:pss_kb], uss_kb: memory[:uss_kb],
                                 shared_kb: shared, shared_pct: percent(shared, memory[:rss_kb]))
      end

      # hosts_jobs: the tree holds Solid Queue's processes, so a Puma at its root hosts them (Solid Queue's plugin,
      # SOLID_QUEUE_IN_PUMA): neither a master of workers nor a supervisor, its role is "puma".
      def role(title, root, hosts_jobs: false)
        return title[SOLID_QUEUE, 1] if title.match?(SOLID_QUEUE)
        return "puma" if root && hosts_jobs && server(title) == "puma"
        return root ? "parent" : "child" if title.match?(RESQUE)
        return "master" if root
        return "worker #{title[WORKER, 1]}" if title.match?(WORKER)

        title.match?(MOLD) ? "mold" : "child"
      end

      # @param titles [Array<String>] a tree's
      def hosts_jobs?(titles) = titles.any? { |title| title.match?(SOLID_QUEUE) }

      def server(title) = SERVERS.find { |_, pattern| title.match?(pattern) }&.first

      def percent(part, whole) = whole.positive? ? (100.0 * part / whole).round(1) : nil
    end
  end
end
