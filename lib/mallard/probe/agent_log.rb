# frozen_string_literal: true

module Mallard
  module Probe
    # Follows the agent's JSON-lines file while the subject runs, reading only what was appended
    # since the last call, and keeps each process's latest cumulative request count.
    class AgentLog
      def initialize(path)
        @path = path
        @offset = 0
        @requests_by_pid = {}
        @partial = String.new # binary, as read: JsonLines.parse makes each line UTF-8
      end

      # @return [Integer] requests finished so far across all the subject's processes
      def requests
        read_new_records
        @requests_by_pid.values.sum
      end

      private

      def read_new_records
        return unless File.exist?(@path)

        chunk = File.open(@path, "rb") do |file|
          file.seek(@offset)
          file.read
        end
        @offset += chunk.bytesize
        lines = (@partial + chunk).split("\n".b, -1)
        @partial = lines.pop.to_s # an unfinished last line is completed by the next read
        lines.each { |line| absorb(line) }
      end

      def absorb(line)
        hash = Run::JsonLines.parse(line)
        _, record = hash && Run.record(hash)
        @requests_by_pid[record.pid] = record.requests if record.is_a?(Run::AgentRecord) && record.requests
      end
    end
  end
end
