# frozen_string_literal: true

require_relative "../value"

module Mallard
  module Run
    # The records of samples.jsonl and agent.jsonl, as the run model holds them. The field names are written
    # here and by the writers (Probe::Sampler, Agent::RecordLine) and read nowhere else.

    # One tick of the sampler: the whole process tree summed. `requests` is the agent's count at the tick;
    # cpu_s the subject's CPU seconds so far, own_cpu_s mallard's with all its children (the subject and the load
    # tool included), machine_cpu_s every CPU's busy seconds since boot.
    TotalSample = Value.define(:t, :rss_kb, :pss_kb, :uss_kb, :swap_kb, :processes, :requests, :cpu_s, :own_cpu_s,
                               :machine_cpu_s) do
      def self.record(time:, readings:, **counters)
        sums = %i[rss_kb pss_kb uss_kb swap_kb].to_h { |key| [key, readings.sum { |r| r.fetch(key) }] }
        { kind: "total", t: time, **sums, processes: readings.size, **counters }
      end
    end

    # One process of the tree at one tick; role is "main" for the process mallard started, else "child".
    ProcessSample = Value.define(:t, :pid, :role, :rss_kb, :pss_kb, :uss_kb, :swap_kb) do
      def self.record(time:, pid:, role:, memory:)
        { kind: "memory", t: time, pid: pid, role: role, **memory }
      end
    end

    # One interval of the in-process agent: GC.stat as it stood, requests finished so far (cumulative per
    # process), and per-request columns for the requests recorded in the interval.
    AgentRecord = Value.define(:t, :pid, :gc, :requests, :in_app_ms, :body_ms, :chunks, :requests_sampled)

    # Which model class each record kind becomes.
    RECORD_KINDS = { "total" => TotalSample, "memory" => ProcessSample, "agent" => AgentRecord }.freeze

    # @param hash [Hash] one parsed JSON line
    # @return [Array(String, Value), nil] its kind and value; nil for a kind this mallard does not know
    def self.record(hash)
      type = RECORD_KINDS[hash["kind"]]
      return unless type && hash["t"].is_a?(Numeric)

      [hash["kind"], type.from_h(hash)]
    end
  end
end
