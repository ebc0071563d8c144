# frozen_string_literal: true

module Mallard
  class CLI
    # mallard soak DIR | mallard soak --url URL -- CMD | mallard soak --script FILE [-- ARGS]
    class Soak
      BANNER = <<~TEXT
        Usage: mallard soak [options] DIR                  a Rack app (config.ru), served by Puma
               mallard soak [options] --url URL -- CMD     any server; {port} in CMD and URL is a free port
               mallard soak [options] --script FILE [-- ARGS]   a Ruby script run to completion

        Memory of the whole process tree over time under external load (wrk), with a leak /
        plateau verdict, throughput, latency, in-app time and GC. Raw samples go to the run
        directory as they are taken. Exit status: 0 done, 69 the subject failed, 130 interrupted.
      TEXT

      def initialize(out:, err:, env:)
        @out = out
        @err = err
        @env = env
        @options = Experiments::SoakOptions.defaults
        @paths = []
        @cli = { json: false, threads: 5, workers: 0 }
      end

      def run(argv)
        target = parse(argv)
        return @out.puts(@cli[:help]) || 0 if @cli[:help]

        run_dir = Run::Directory.create(command: "soak", out: @cli[:out])
        summary = Experiments::Soak.new(target: target, options: @options, run_dir: run_dir,
                                        reporter: reporter).call
        render(summary, run_dir)
        exit_status(summary)
      end

      private

      def parse(argv)
        separator = argv.index("--")
        operands = parser.parse(separator ? argv[0...separator] : argv)
        @options.paths = @paths unless @paths.empty?
        @options.validate!
        build_target(operands, separator ? argv[(separator + 1)..] : [])
      rescue OptionParser::ParseError => e
        raise UsageError, "soak: #{e.message} (see `mallard soak --help`)"
      end

      def parser
        OptionParser.new do |opts|
          opts.banner = BANNER
          load_options(opts)
          subject_options(opts)
          opts.on("--out DIR", "run directory (default .mallard/runs/<time>-soak)") { |v| @cli[:out] = v }
          opts.on("--json", "print the summary as JSON") { @cli[:json] = true }
          opts.on("-h", "--help", "show this help") { @cli[:help] = opts.help }
        end
      end

      def load_options(opts)
        opts.on("--duration SECONDS", Float, "load duration (default 20)") { |v| @options.duration = v }
        opts.on("--requests N", Integer, "stop after N requests") { |v| @options.requests = v }
        opts.on("--concurrency N", Integer, "open connections (default 10)") { |v| @options.concurrency = v }
        opts.on("--path PATH", "request path; repeat for round-robin (default /)") { |v| @paths << v }
        opts.on("--paths FILE", "request paths, one per line") { |v| @paths.concat(read_paths(v)) }
        opts.on("--interval SECONDS", Float, "sampling interval (default 0.5)") { |v| @options.interval = v }
        opts.on("--ruby-client", "use the built-in load client even if wrk is installed") do
          @options.ruby_client = true
        end
      end

      def subject_options(opts)
        opts.on("--threads N", Integer, "Puma threads (default 5)") { |v| @cli[:threads] = v }
        opts.on("--workers N", Integer, "Puma workers (default 0)") { |v| @cli[:workers] = v }
        opts.on("--url URL", "with -- CMD: the URL to load") { |v| @cli[:url] = v }
        opts.on("--script FILE", "run a Ruby script to completion instead of a server") { |v| @cli[:script] = v }
        opts.on("--allocator NAME", "run the subject under this memory configuration") { |v| @options.allocator = v }
        opts.on("--boot-timeout SECONDS", Float, "wait this long for the server (default 60)") do |v|
          @options.boot_timeout = v
        end
      end

      def read_paths(file)
        File.readlines(file, chomp: true).map(&:strip).reject { |line| line.empty? || line.start_with?("#") }
      rescue SystemCallError => e
        raise UsageError, "soak: cannot read --paths #{file}: #{e.message}"
      end

      def build_target(operands, command)
        return Target::Script.new(path: @cli[:script], args: command) if @cli[:script]
        return Target::ServerCommand.new(argv: command, url: @cli[:url]) if command.any?
        raise UsageError, "soak: give an app directory, --url URL -- CMD, or --script FILE" unless operands.size == 1

        Target::RackApp.new(dir: operands.first, threads: @cli[:threads], workers: @cli[:workers])
      end

      def reporter
        @cli[:json] ? Report::SilentProgress.new : Report::Progress.new(@err)
      end

      def render(summary, run_dir)
        return Report::Json.new(summary).render(@out) if @cli[:json]

        Report::SoakTerminal.new(summary, samples: run_dir.read_jsonl("samples.jsonl"),
                                          color: Report::Color.for(@out, env: @env)).render(@out)
      end

      def exit_status(summary)
        return 0 unless summary["status"] == "interrupted"

        summary["reason"].to_s.start_with?("mallard received") ? 130 : SubjectFailed.new("").exit_status
      end
    end
  end
end
