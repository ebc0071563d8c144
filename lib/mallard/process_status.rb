# frozen_string_literal: true

module Mallard
  # How a child process ended, in the words an error message needs.
  module ProcessStatus
    # @param status [Process::Status, nil]
    def self.describe(status)
      return "status unknown" unless status

      status.signaled? ? "killed by signal #{status.termsig}" : "exit status #{status.exitstatus}"
    end
  end
end
