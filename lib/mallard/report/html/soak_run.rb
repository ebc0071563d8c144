# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # One soak's run directory as the report reads it. summary.json may be missing (a run killed
      # before it could write one): the samples still tell the memory story.
      class SoakRun
        attr_reader :directory, :meta, :summary, :samples, :agent

        def initialize(directory)
          @directory = directory
          @meta = directory.read_json("meta.json") || {}
          @summary = directory.read_json("summary.json")
          @samples = directory.read_jsonl("samples.jsonl")
          @agent = directory.read_jsonl("agent.jsonl").select { |r| r["kind"] == "agent" }
        end

        def path = @directory.path

        def phases = @meta.fetch("phases", {})

        def totals
          @totals ||= Timeline.totals(@samples)
        end

        def processes
          @processes ||= Timeline.processes(@samples)
        end

        def interval = @meta.dig("options", "interval") || 0.5

        def load_started_t = phases["load_started_t"] || 0

        # The verdict's warm-up is counted from the start of load; none when no warm-up was detected.
        def warmup
          length = @summary&.dig("verdict", "warmup_end_s")
          start = phases["load_started_t"]
          return unless start && length.to_f.positive?

          SvgChart::Band.new(start, start + length, "warm-up (#{length} s)")
        end
      end
    end
  end
end
