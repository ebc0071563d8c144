# frozen_string_literal: true

require "etc"

module Mallard
  module Run
    # meta.json: what was run, on what, and when each phase began (seconds since the run's start).
    # The command line and the options (request paths) may hold any bytes, so their copies here are scrubbed.
    module Meta
      module_function

      def build(command:, target:, options:, phases:, subject:)
        { schema_version: Directory::SCHEMA_VERSION, command: command, argv: Text.scrub_all(ARGV),
          mallard_version: VERSION, ruby: RUBY_DESCRIPTION, kernel: "#{Etc.uname[:sysname]} #{Etc.uname[:release]}",
          cpus: Etc.nprocessors,
          target: { kind: target.kind, description: target.describe, url: target.url },
          options: Text.scrub_all(options.to_h), subject_pid: subject&.pid, phases: phases }
      end
    end
  end
end
