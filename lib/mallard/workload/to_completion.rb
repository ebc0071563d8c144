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

      # @return [Run::Phases] with the script's exit status
      def finish(subject, phases) = phases.with(exit_status: subject.status&.exitstatus)
    end
  end
end
