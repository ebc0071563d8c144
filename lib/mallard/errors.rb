# frozen_string_literal: true

module Mallard
  # A failure mallard can explain in one line. Each subclass carries the exit status the CLI
  # returns for it, so scripts can tell "you typed it wrong" from "the process vanished".
  class Error < StandardError
    def exit_status = 70
  end

  # Bad command line: unknown option, missing argument.
  class UsageError < Error
    def exit_status = 64
  end

  # The process or file named does not exist (any more).
  class NotFound < Error
    def exit_status = 66
  end

  # The process exists but this user may not read its /proc files.
  class PermissionDenied < Error
    def exit_status = 77
  end

  # A run that is no measurement (most of its requests failed), or one this mallard cannot read faithfully.
  class FailedMeasurement < Error
    def exit_status = 65
  end

  # The run directory stopped taking writes (a full or read-only disk): what was written before is kept.
  class WriteFailed < Error
    def exit_status = 74
  end

  # A service mallard reads from is not there, or has nothing for the question asked (a Prometheus that does
  # not answer, or whose selector matches no series). EX_UNAVAILABLE, as for a subject that never came up.
  class Unavailable < Error
    def exit_status = 69
  end

  # A subject mallard started died or never came up. Carries its last lines of output.
  class SubjectFailed < Error
    attr_reader :output_tail

    def initialize(message, output_tail: [])
      super(message)
      @output_tail = output_tail
    end

    def exit_status = 69
  end
end
