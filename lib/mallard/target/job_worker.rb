# frozen_string_literal: true

module Mallard
  module Target
    # What every job worker target shares (RedisJobWorker's Sidekiq and Resque, ActiveJobWorker's Solid Queue and
    # GoodJob): its jobs are its load, pushed by a workload script (Workload::Jobs) and counted by the agent inside
    # it. A worker sets @dir, @workload_path and @argv, and names itself (#backend_name) and what it runs with
    # (#described_details: the workload, its store, its user).
    module JobWorker
      attr_reader :dir, :workload_path

      def url = nil
      # Its jobs are counted by mallard's agent inside the worker: without it there is nothing to measure.
      def measurable_without_agent? = false
      # The worker's command loads the app as it will: mallard has no place in it for a line to run after boot.
      def after_boot? = false
      # Its process tree is its own to shape: compare --shape is refused for it.
      def shapes? = false

      # Scrubbed for meta.json and summaries; the command run keeps its bytes.
      def describe
        command = @argv.map { |arg| Text.scrub(arg) }.join(" ")
        "#{command} in #{Text.scrub(@dir)} (#{backend_name}, #{described_details.compact.join(', ')})"
      end

      def workload(options:, run_dir:, samples:, clock:, agent_log:)
        Workload::Jobs.new(path: @workload_path, dir: @dir, backend: self, options: options, run_dir: run_dir,
                           samples: samples, clock: clock, agent_log: agent_log)
      end
    end
  end
end
