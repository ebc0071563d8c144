# frozen_string_literal: true

module Mallard
  class CLI
    # What every command shares: where it writes, the environment it was given, and the settings
    # its options fill in (@cli).
    class Command
      # Durations as options take them: 90s, 15m, 1h, 1h30m, 2d, 1w, or plain seconds.
      DURATION = /\A(?:(\d+(?:\.\d+)?)([smhdw]))+\z/
      DURATION_UNITS = { "s" => 1, "m" => 60, "h" => 3600, "d" => 86_400, "w" => 604_800 }.freeze

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

      # @return [Float] seconds
      # @raise [OptionParser::InvalidArgument] naming what it takes
      def duration(text)
        unless text.match?(DURATION) || Float(text, exception: false)&.positive?
          raise OptionParser::InvalidArgument, "#{text} (a duration such as 90s, 15m, 1h or 1h30m)"
        end

        seconds = Float(text, exception: false) ||
                  text.scan(/(\d+(?:\.\d+)?)([smhdw])/).sum { |number, unit| Float(number) * DURATION_UNITS[unit] }
        raise OptionParser::InvalidArgument, "#{text} (longer than zero)" unless seconds.positive?

        seconds
      end

      # The summary (or diff, or diagnosis) as --json asked, or through its terminal view: a run's summary as its kind
      # of run shows it (Report.terminal).
      def show(value)
        return Report::Json.new(value).render(@out) if @cli[:json]

        Report.terminal(value, color: Report::Color.for(@out, env: @env)).render(@out)
      end

      # Prints the help when --help asked for it; true then, and the command has nothing else to do.
      def help_printed?
        @out.puts(@cli[:help]) if @cli[:help]
        !@cli[:help].nil?
      end
    end
  end
end
