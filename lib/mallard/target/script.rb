# frozen_string_literal: true

module Mallard
  module Target
    # A Ruby script that runs to completion (a batch job): no server, no load.
    class Script
      def initialize(path:, args: [], user: SubjectUser::Same)
        @path = File.expand_path(path)
        @args = args
        @user = user
        raise NotFound, "no script at #{@path}" unless File.file?(@path)
      end

      def kind = "script"
      def url = nil
      # No load: nothing of the agent's cost to measure a run without it on.
      def measurable_without_agent? = false
      # A script is not a server that boots before it serves: there is no "after boot" for a line to run at.
      def after_boot? = false

      # Its process tree is its own to shape: compare --shape is refused for it.
      def shapes? = false

      # Scrubbed for meta.json and summaries; the command run keeps its bytes.
      def describe
        ["ruby", @path, *@args].map { |part| Text.scrub(part) }.join(" ")
      end

      def command(env:, run_dir:)
        @user.prepare(run_dir)
        Command.new(["ruby", @path, *@args], env: env.merge(@user.env), log_path: run_dir.file("subject.log"),
                                             spawn_options: @user.spawn_options)
      end

      def workload(**) = Workload::ToCompletion.new

      def release = nil
      def ready? = true
      def waiting_for = nil
    end
  end
end
