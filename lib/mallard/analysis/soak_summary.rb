# frozen_string_literal: true

module Mallard
  module Analysis
    # The figures and verdicts of one soak, computed from a run directory's raw records
    # (string-keyed, as parsed from JSON). Pure: it reads nothing itself but through from_run.
    class SoakSummary
      def self.from_run(run_dir)
        new(meta: run_dir.read_json("meta.json") || {}, samples: run_dir.read_jsonl("samples.jsonl"),
            agent: run_dir.read_jsonl("agent.jsonl"), load: run_dir.read_json("load.json"),
            run_dir: Text.scrub(run_dir.path)).to_h # the path may hold any bytes; the summary is JSON
      end

      def initialize(meta:, samples:, agent:, load:, run_dir:)
        @meta = meta
        @phases = meta.fetch("phases", {})
        @totals = samples.select { |s| s["kind"] == "total" }.sort_by { |s| s["t"] }
        @processes = samples.select { |s| s["kind"] == "memory" }
        @agent = agent.select { |r| r["kind"] == "agent" }
        @load = load
        @run_dir = run_dir
      end

      def to_h
        { schema_version: Run::Directory::SCHEMA_VERSION, kind: "soak", status: @phases["status"],
          reason: @phases["reason"], run_dir: @run_dir, target: @meta["target"],
          allocator: @phases["diagnosis"], verdict: verdict, memory: memory,
          load: LoadFigures.call(@load), app: AppFigures.call(@agent, @load),
          gc: GcFigures.call(@agent, script: script?), script: script_figures }
      end

      private

      def script?
        @meta.dig("target", "kind") == "script"
      end

      # Servers are judged on the samples taken while load ran; with several processes on their
      # summed PSS, which counts shared pages once.
      def window
        @window ||= LoadWindow.select(@totals, @phases)
      end

      def warmup_samples
        @warmup_samples ||= Warmup.detect(window.map { |s| s[metric] })
      end

      def steady_window
        window.drop(warmup_samples)
      end

      def metric
        @totals.any? { |s| s["processes"].to_i > 1 } ? "pss_kb" : "rss_kb"
      end

      def verdict
        return if script?

        steady = steady_window
        axis, source = RequestAxis.call(steady, load: @load, phases: @phases)
        result = LeakVerdict.call(requests: axis, rss_kb: steady.map { |s| s[metric] })
        result.to_h.merge(metric: metric, requests_source: source, warmup_samples: warmup_samples,
                          warmup_end_s: steady.first && (steady.first["t"] - window.first["t"]).round(2))
      end

      def memory
        steady = steady_window
        { steady_rss_kb: Statistics.median(steady.map { |s| s["rss_kb"] })&.round,
          steady_pss_kb: Statistics.median(steady.map { |s| s["pss_kb"] })&.round,
          peak_rss_kb: @totals.map { |s| s["rss_kb"] }.max, final_rss_kb: @totals.last&.fetch("rss_kb"),
          samples: @totals.size, processes: @totals.map { |s| s["processes"] }.max, per_process: per_process }
      end

      def per_process
        @processes.group_by { |s| s["pid"] }.map do |pid, records|
          { pid: pid, role: records.first["role"], peak_rss_kb: records.map { |r| r["rss_kb"] }.max,
            final_rss_kb: records.last["rss_kb"] }
        end
      end

      def script_figures
        return unless script?

        { wall_s: (@phases["load_finished_t"].to_f - @phases["up_t"].to_f).round(2),
          exit_status: @phases["exit_status"], peak_rss_kb: @totals.map { |s| s["rss_kb"] }.max,
          final_rss_kb: @totals.last&.fetch("rss_kb") }
      end
    end
  end
end
