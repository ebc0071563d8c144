# frozen_string_literal: true

module Mallard
  class CLI
    # The options `soak` and `compare` share: what to run (the target) and how to load it.
    class MeasureOptions
      TARGETS = <<~TEXT
        Targets:  DIR                       a Rack app (config.ru, Rails included), served by Puma
                  --url URL -- CMD          any server; {port} in CMD and URL is a free port
                  --script FILE [-- ARGS]   a Ruby script run to completion
      TEXT

      attr_reader :soak

      def initialize
        @soak = Experiments::SoakOptions.defaults
        @paths = []
        @subject = { threads: 5, workers: 0 }
      end

      def define(opts)
        load_options(opts)
        subject_options(opts)
      end

      # --out, --json, --html and --help, recorded in the command's own settings.
      def define_output(opts, settings, command)
        opts.on("--out DIR", "run directory (default .mallard/runs/<time>-#{command})") { |v| settings[:out] = v }
        opts.on("--json", "print the summary as JSON") { settings[:json] = true }
        HtmlOutput.define(opts, settings)
        opts.on("-h", "--help", "show this help") { settings[:help] = opts.help }
      end

      # @return [Array(Array<String>, Array<String>)] the operands, and the command after `--`
      def parse(parser, argv)
        separator = argv.index("--")
        [parser.parse(separator ? argv[0...separator] : argv), separator ? argv[(separator + 1)..] : []]
      end

      # @param operands [Array<String>] what remains after options (the app directory)
      # @param command [Array<String>] what follows `--`
      def target(operands, command)
        @soak.paths = @paths unless @paths.empty?
        @soak.validate!
        return Target::Script.new(path: @subject[:script], args: command) if @subject[:script]
        return Target::ServerCommand.new(argv: command, url: @subject[:url]) if command.any?
        raise UsageError, "give an app directory, --url URL -- CMD, or --script FILE" unless operands.size == 1

        Target::RackApp.new(dir: operands.first, threads: @subject[:threads], workers: @subject[:workers])
      end

      private

      def load_options(opts)
        opts.on("--duration SECONDS", Float, "load duration (default 20)") { |v| @soak.duration = v }
        opts.on("--requests N", Integer, "stop after N requests") { |v| @soak.requests = v }
        opts.on("--concurrency N", Integer, "open connections (default 10)") { |v| @soak.concurrency = v }
        opts.on("--path PATH", "request path; repeat for round-robin (default /)") { |v| @paths << v }
        opts.on("--paths FILE", "request paths, one per line") { |v| @paths.concat(read_paths(v)) }
        opts.on("--interval SECONDS", Float, "sampling interval (default 0.5)") { |v| @soak.interval = v }
        opts.on("--ruby-client", "use the built-in load client even if wrk is installed") do
          @soak.ruby_client = true
        end
      end

      def subject_options(opts)
        opts.on("--threads N", Integer, "Puma threads (default 5)") { |v| @subject[:threads] = v }
        opts.on("--workers N", Integer, "Puma workers (default 0)") { |v| @subject[:workers] = v }
        opts.on("--url URL", "with -- CMD: the URL to load") { |v| @subject[:url] = v }
        opts.on("--script FILE", "run a Ruby script to completion instead of a server") { |v| @subject[:script] = v }
        opts.on("--boot-timeout SECONDS", Float, "wait this long for the server (default 60)") do |v|
          @soak.boot_timeout = v
        end
      end

      def read_paths(file)
        File.readlines(file, chomp: true).map(&:strip).reject { |line| line.empty? || line.start_with?("#") }
      rescue SystemCallError => e
        raise UsageError, "cannot read --paths #{file}: #{e.message}"
      end
    end
  end
end
