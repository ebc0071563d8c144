# frozen_string_literal: true

module Mallard
  class CLI
    # What every command shares: where it writes, the environment it was given, and the settings
    # its options fill in (@cli).
    class Command
      def initialize(out:, err:, env:)
        @out = out
        @err = err
        @env = env
        @cli = defaults
      end

      private

      def defaults
        { json: false }
      end

      # --json, --html FILE and --help: how a command that shows a summary shows it.
      def define_view_options(opts)
        opts.on("--json", "print the summary as JSON") { @cli[:json] = true }
        HtmlOutput.define(opts, @cli)
        opts.on("-h", "--help", "show this help") { @cli[:help] = opts.help }
      end

      # Prints the help when --help asked for it; true then, and the command has nothing else to do.
      def help_printed?
        @out.puts(@cli[:help]) if @cli[:help]
        !@cli[:help].nil?
      end
    end
  end
end
