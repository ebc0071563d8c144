# frozen_string_literal: true

require_relative "heap_dumps"

module Mallard
  module Experiments
    # `mallard heap`: a soak that takes three heap dumps as it goes (HeapDumps is its ticker), then what the dumps
    # retain, summarised and saved beside the soak's own summary (soak_summary.json).
    class Heap
      # @param options [SoakOptions] the soak's; its duration places the dumps
      # @param user [Target::SubjectUser] who the app runs as (the dumps' directory is theirs)
      # @param notice [#call, nil] tells the user that the run waits for its dumps
      def initialize(target:, options:, run_dir:, reporter:, command_line:, user:, notice:)
        @target = target
        @options = options
        @run_dir = run_dir
        @reporter = reporter
        @command_line = command_line
        @user = user
        @notice = notice
      end

      # @return [Summary::Heap] (also written to summary.json, or marked as not saved)
      def call
        dumps = HeapDumps.new(run_dir: @run_dir, duration: @options.duration, url: -> { @target.url },
                              path: @options.paths.first, user: @user, notice: @notice)
        begin
          Soak.new(target: @target, options: @options, run_dir: @run_dir, reporter: @reporter,
                   command_line: @command_line, command: "heap", ticker: dumps).call
        ensure
          dumps.record
        end
        @run_dir.save_summary(Analysis::HeapSummary.call(Run::HeapReader.read(@run_dir)))
      end
    end
  end
end
