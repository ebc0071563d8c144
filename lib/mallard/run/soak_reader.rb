# frozen_string_literal: true

module Mallard
  module Run
    # The one reader of a soak's run directory, live or stored: meta.json, samples.jsonl, agent.jsonl,
    # load.json and summary.json become a SoakRun. Tolerant of a run killed at any moment: missing files are
    # empty, damaged lines are counted and skipped.
    module SoakReader
      module_function

      # @param directory [Directory]
      # @return [SoakRun]
      def read(directory)
        samples = JsonLines.read(directory.file("samples.jsonl"))
        agent = JsonLines.read(directory.file("agent.jsonl"))
        records = (samples.records + agent.records).filter_map { |hash| Run.record(hash) }.group_by(&:first)
        of = ->(kind) { records.fetch(kind, []).map(&:last).sort_by(&:t) }
        SoakRun.new(path: directory.path, meta: Meta.from_h(directory.read_json("meta.json")) || Meta.new,
                    totals: of.call("total"), processes: of.call("memory"), agent: of.call("agent"),
                    load: load_result(directory), summary: Summary::Soak.from_h(directory.read_json("summary.json")),
                    skipped: samples.skipped + agent.skipped)
      end

      def load_result(directory)
        stored = directory.read_json("load.json")
        stored && Probe::LoadResult.from_h(stored)
      end
    end
  end
end
