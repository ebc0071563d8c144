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

      # A directory that takes no more writes costs its files, never the summary: the heap's ends as the soak's did
      # (interrupted, write_failed), from the soak's summary in hand when soak_summary.json did not take it (nor
      # meta.json, then, how the soak ended).
      # @return [Summary::Heap] (also written to summary.json, or marked as not saved)
      def call
        dumps = HeapDumps.new(run_dir: @run_dir, duration: @options.duration, url: -> { @target.url },
                              path: @options.paths.first, user: @user, notice: @notice)
        soak = soak(dumps)
        read = Run::HeapReader.read(@run_dir)
        # the same summary, unless soak_summary.json did not take it
        run = read.with(soak: read.soak.with(summary: read.soak.summary || soak))
        @run_dir.save_summary(Analysis::HeapSummary.call(run), earlier: [@schedule_failure])
      end

      private

      def soak(dumps)
        Soak.new(target: @target, options: @options, run_dir: @run_dir, reporter: @reporter,
                 command_line: @command_line, command: "heap", ticker: dumps).call
      ensure
        @schedule_failure = @run_dir.saved { dumps.record }
      end
    end
  end
end
