# frozen_string_literal: true

module Mallard
  # The views: one per kind of run and format, each formatting the value it is given.
  module Report
    # The terminal view of whatever a command shows. A run's summary is shown as its kind of run shows it
    # (RunKind#terminal), so no command names a view; a diff of two runs and a process's diagnosis are no kind of
    # run, and have one view each.
    # @param value [Summary::Diff, Summary::Diagnosis, #kind] a summary names its kind of run
    # @return [#render]
    def self.terminal(value, color:)
      case value
      when Summary::Diff then DiffTerminal.new(value, color: color)
      when Summary::Diagnosis then DoctorTerminal.new(value, color: color)
      else RunKind.named(value.kind).terminal(value, color: color)
      end
    end
  end
end
