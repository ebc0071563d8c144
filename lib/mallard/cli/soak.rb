# frozen_string_literal: true

module Mallard
  class CLI
    # mallard soak DIR | mallard soak --url URL -- CMD | mallard soak --script FILE [-- ARGS]
    class Soak < MeasuringCommand
      BANNER = <<~TEXT.freeze
        Usage: mallard soak [options] TARGET

        Memory of the whole process tree over time under external load (wrk), with a leak /
        plateau verdict, throughput, latency, in-app time and GC. Raw samples go to the run
        directory as they are taken. Exit status: 0 done, 64 bad usage (refused before anything
        starts), 65 a failed measurement (too many failed requests: no verdict), 69 the subject or the
        load failed, 74 the run directory took no more writes, 130 interrupted.

        #{MeasureOptions::TARGETS}
      TEXT

      # Seconds without a major GC before the agent runs one: a few exact readings of the live set a minute on a
      # server whose own majors are rare, at the cost of one full GC each (bench/README.md measures it).
      FULL_GC_EVERY = 10.0

      def run(argv)
        target = parse(argv)
        return 0 if help_printed?

        run_dir = Run::Directory.create(command: command, out: @cli[:out])
        summary = measure(target, run_dir, argv)
        show(summary)
        HtmlOutput.write_run(@cli[:html], @err, summary: summary, directory: run_dir)
        say_unsaved(summary)
        summary.outcome.exit_status
      end

      private

      # The run directory holds less than the view shown (`mallard report` cannot show it again): said on stderr too,
      # where a script reading --json sees it.
      def say_unsaved(summary)
        @err.puts "mallard: #{Text.printable(summary.reason)}" if summary.outcome.cause == "write_failed"
      end

      def measure(target, run_dir, argv)
        Experiments::Soak.new(target: target, options: @measure.soak, run_dir: run_dir, reporter: reporter,
                              command_line: [command, *argv], command: command, catalog: @measure.catalog).call
      rescue UsageError
        run_dir.discard # refused before anything was measured: no junk run directory
        raise
      end

      def parse(argv)
        operands, server = @measure.parse(parser, argv)
        return if @cli[:help]

        target = @measure.target(operands, server)
        @measure.catalog.fetch(@measure.soak.allocator) if @measure.soak.allocator
        @measure.check_outputs!(@cli)
        target
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "#{command}: #{e.message} (see `mallard #{command} --help`)"
      end

      def parser
        Parser.new do |opts|
          opts.banner = banner
          @measure.define(opts)
          opts.on("--allocator NAME", "run the subject under this memory configuration") do |name|
            @measure.soak.allocator = name
          end
          @measure.define_until_decided(opts)
          @measure.define_idle(opts) { |text| duration(text) } if command == "soak"
          define_full_gc(opts)
          @measure.define_output(opts, @cli, command)
        end
      end

      # A soak explains: its agent reads the live set exactly, running a full GC itself when the app's own major GCs
      # are rarer than this (Agent::FullGc).
      def define_full_gc(opts)
        @measure.soak.full_gc_every = FULL_GC_EVERY
        opts.on("--full-gc-every SECONDS", "the agent runs a full GC when no major GC has run for this long, for an " \
                                           "exact live set (default #{FULL_GC_EVERY.round}; off: never)") do |value|
          @measure.soak.full_gc_every = value == "off" ? nil : Float(value)
        rescue ArgumentError
          raise OptionParser::InvalidArgument, "#{value} (seconds, or off)"
        end
      end

      # `mallard gc` is this command under another name and view.
      def command = "soak"

      def banner = BANNER

      def reporter
        @cli[:json] ? Report::SilentProgress.new : Report::Progress.new(@err)
      end
    end
  end
end
