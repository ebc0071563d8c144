# frozen_string_literal: true

module Mallard
  module Run
    # The one reader of a soak's run directory, live or stored: meta.json, samples.jsonl, agent.jsonl,
    # load.json, ramp.json and summary.json become a SoakRun. Tolerant of a run killed at any moment: missing files are
    # empty, damaged lines are counted and skipped.
    module SoakReader
      module_function

      # @param directory [Directory]
      # @return [SoakRun]
      def read(directory)
        samples = JsonLines.read(directory.file("samples.jsonl"))
        agent = JsonLines.read(directory.file("agent.jsonl"))
        meta = Meta.from_h(directory.read_json("meta.json")) || Meta.new
        SoakRun.new(path: directory.path, meta: meta, **by_member(records(samples.records + agent.records)),
                    load: load_result(directory), ramp: Ramp.from_h(directory.read_json("ramp.json")),
                    workload: WorkloadEnding.from_h(directory.read_json("workload.json")),
                    summary: Summary::Soak.from_h(directory.read_json(summary_file(meta))),
                    skipped: samples.skipped + agent.skipped)
      end

      # Where the soak's summary is: summary.json, but beside the heap's in a heap run (RunKind#soak_summary_file).
      def summary_file(meta) = RunKind.for_command(meta.command).soak_summary_file

      # kind => its values in time order ([] for a kind the run has none of); a "gc" line holds many events, and
      # under "gc_drop" how many GCs it lost.
      def records(hashes)
        by_kind = Hash.new { |hash, kind| hash[kind] = [] }
        hashes.each do |hash|
          if hash["kind"] == "gc"
            by_kind["gc"].concat(Run.gc_events(hash))
            by_kind["gc_drop"] << Run.gc_drop(hash)
          elsif (kind, value = Run.record(hash))
            by_kind[kind] << value
          end
        end
        by_kind.transform_values { |values| values.compact.sort_by(&:t) }.tap { |sorted| sorted.default = [] }
      end

      # SoakRun's members by the record kinds they hold.
      def by_member(records)
        { totals: records["total"], processes: records["memory"], agent: records["agent"], gc_events: records["gc"],
          gc_drops: records["gc_drop"], jobs: records["jobs"], ledger: records["ledger"], ruby_states: records["ruby"],
          cgroups: records["cgroup"] }
      end

      def load_result(directory)
        stored = directory.read_json("load.json")
        stored && Probe::LoadResult.from_h(stored)
      end
    end
  end
end
