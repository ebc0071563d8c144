# frozen_string_literal: true

module Mallard
  # Time for measuring intervals: the monotonic clock, which wall-clock adjustments cannot move.
  # It is system-wide on Linux, so the subject's agent and mallard read the same one.
  module Clock
    def self.monotonic
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end
