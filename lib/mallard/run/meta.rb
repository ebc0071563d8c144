# frozen_string_literal: true

require "etc"
require_relative "../value"
require_relative "phases"
require_relative "../cpus/layout"

module Mallard
  module Run
    # What a run measured: its kind and a description, and the URL when it served HTTP.
    TargetInfo = Value.define(:kind, :description, :url)

    class TargetInfo
      def self.of(target)
        new(kind: target.kind, description: target.describe, url: target.url)
      end

      # A job worker's work is jobs, not requests.
      def jobs? = %w[sidekiq solid_queue good_job resque].include?(kind)
    end

    # meta.json: what was run, on what, and when each phase began. Written when a run starts and again as it
    # moves on, so a run killed at any moment still says what it was and how far it got. The command line and
    # the options (request paths) may hold any bytes, so their copies here are scrubbed. cpus counts the CPUs mallard
    # was given (not those it had narrowed itself to while the load ran); cpu_layout says which the subject and the
    # load ran on (Cpus::Layout).
    # subject_ruby: the app's Ruby (Target::SubjectRuby#to_h), with YJIT as the app saw it (Analysis::RubyFigures).
    # puma: for an app mallard served with Puma, its pool threads and workers ({"threads", "workers"}; nil elsewhere,
    # across shapes, and in runs made before it was kept).
    Meta = Value.define(:schema_version, :command, :argv, :mallard_version, :ruby, :kernel, :cpus, :options,
                        :subject_pid, :configs, :repeat, :until_resolved, :budget_s, :subject_ruby, :rubies, :puma,
                        target: TargetInfo,
                        phases: Phases,
                        cpu_layout: Cpus::Layout)

    class Meta
      # @param argv [Array<String>] the command line as the user gave it
      def self.build(command:, argv:, target:, options:, phases: nil, subject_pid: nil, **extra)
        new(schema_version: Directory::SCHEMA_VERSION, command: command, argv: Text.scrub_all(argv),
            mallard_version: VERSION, ruby: RUBY_DESCRIPTION, kernel: "#{Etc.uname[:sysname]} #{Etc.uname[:release]}",
            cpus: extra[:cpu_layout]&.available&.size || Etc.nprocessors, target: TargetInfo.of(target),
            options: Text.scrub_all(options.to_h), subject_pid: subject_pid, phases: phases,
            puma: target.respond_to?(:shape_counts) ? target.shape_counts : nil, **extra)
      end
    end
  end
end
