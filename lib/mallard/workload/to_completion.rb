# frozen_string_literal: true

module Mallard
  module Workload
    # A script's work is its own run: done when it exits, whose status the run keeps.
    class ToCompletion
      def description = nil
      def duration = nil
      def prepare(_subject) = nil
      def start(_subject) = nil
      def running?(subject) = subject.alive?
      def stop = nil

      def finish(subject, phases)
        phases.exit_status = subject.status&.exitstatus
      end
    end
  end
end
