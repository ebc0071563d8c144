# frozen_string_literal: true

module Mallard
  module Report
    # A soak's copy-on-write decay (Summary::SharingDecay), worded once for SoakSentences: per worker, what it shared
    # at its first tick and its last, the share kept over the requests it served, and where its fall has a knee. Empty
    # for a tree without workers.
    class SharingSentences
      include Formatting

      # Where the requests of a worker's points came from (Summary::WorkerSharing#requests_source).
      SOURCES = { "agent" => "its own count", "estimated" => "estimated: the load's rate shared evenly among the " \
                                                             "workers" }.freeze

      # @param decay [Summary::SharingDecay, nil]
      # @param unit [String] what a worker serves: "requests", or a job worker's "jobs"
      def initialize(decay, unit: "requests")
        @workers = decay ? decay.workers : []
        @unit = unit
      end

      # One line per worker.
      def workers = @workers.map { |worker| worker_line(worker) }

      # What the figures are, said once beside them (nil without workers).
      def basis
        return if @workers.empty?

        "Shared: each worker's RSS less its USS, the pages it still shares with its master and the other workers " \
          "(private: its USS), read by the sampler every tick; a knee is where the fall of shared memory bends most."
      end

      def all = [*workers, basis].compact

      private

      def worker_line(worker)
        format("worker pid %<pid>d: shared %<start>s at its first tick, %<end>s after %<requests>s %<unit>s " \
               "(%<source>s): %<kept>s kept; %<finding>s",
               pid: worker.pid, start: mib(worker.shared_start_kb), end: mib(worker.shared_end_kb),
               requests: grouped(worker.requests.to_i), unit: @unit,
               source: SOURCES.fetch(worker.requests_source, "unknown"),
               kept: worker.kept ? format("%.0f%%", worker.kept * 100) : "no share", finding: finding(worker))
      end

      def finding(worker)
        case worker.finding
        when "knee"
          format("its fall bends after %s %s, with %s still shared",
                 grouped(worker.knee_requests.to_i), @unit, mib(worker.knee_shared_kb))
        when "steady_fall" then "it fell steadily, without a knee"
        when "no_decay" then "sharing did not decay"
        else "too few ticks to say how sharing decayed"
        end
      end
    end
  end
end
