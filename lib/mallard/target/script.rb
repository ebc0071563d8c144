# frozen_string_literal: true

module Mallard
  module Target
    # A Ruby script that runs to completion (a batch job): no server, no load.
    class Script
      def initialize(path:, args: [])
        @path = File.expand_path(path)
        @args = args
        raise NotFound, "no script at #{@path}" unless File.file?(@path)
      end

      def kind = "script"
      def url = nil

      def describe
        ["ruby", @path, *@args].join(" ")
      end

      def command(env:, run_dir:)
        Command.new(["ruby", @path, *@args], env: env, log_path: run_dir.file("subject.log"))
      end

      def ready? = true
      def waiting_for = nil
    end
  end
end
