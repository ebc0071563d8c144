# frozen_string_literal: true

module Mallard
  module Probe
    # Follows the agent's JSON-lines file while the subject runs, reading only what was appended
    # since the last call, and keeps each process's latest cumulative request count (jobs, for a job worker)
    # and, for a job worker, how many jobs it was running.
    class AgentLog
      def initialize(path)
        @path = path
        @offset = 0
        @requests_by_pid = {}
        @busy_by_pid = {}
        @partial = String.new # binary, as read: JsonLines.parse makes each line UTF-8
      end

      # @return [Integer] requests finished so far across all the subject's processes
      def requests
        read_new_records
        @requests_by_pid.values.sum
      end

      # @return [Integer] jobs running at the processes' latest records (0 for a web app)
      def busy
        read_new_records
        @busy_by_pid.values.sum
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
        return unless record.is_a?(Run::AgentRecord)

        @requests_by_pid[record.pid] = record.requests if record.requests
        @busy_by_pid[record.pid] = record.busy if record.busy
      end
    end
  end
end
