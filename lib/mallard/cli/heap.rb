# frozen_string_literal: true

module Mallard
  class CLI
    # mallard heap TARGET (a soak with three heap dumps) | mallard heap diff A B C (dumps you have)
    class Heap < Soak
      BANNER = <<~TEXT.freeze
        Usage: mallard heap [options] TARGET
               mallard heap diff [--json] [--html FILE] DUMP_A DUMP_B DUMP_C

        Which allocation sites keep memory alive. The first form soaks TARGET as `mallard soak` does, with
        allocation tracing on in the app and 2 connections unless --concurrency says otherwise (tracing slows
        an app several times over), and takes three heap dumps a quarter, half and three quarters into the
        load, each from a forked copy of the app so that it keeps serving (it pauses only for a minor GC
        before and after the fork); a dump is asked for only once the one before it is written, and the run
        waits, with the app up, for the dumps the load outlasted (at most 15 s for the app to start each,
        120 s to write it), reporting each dump's size against the app's RSS and how long it took;
        the second reads dumps you took yourself (ObjectSpace.dump_all, with trace_object_allocations_start
        before the first, and a GC.start right after each dump: what is allocated in a dump's own last GC
        generation is not counted). Either way: objects allocated between dump A and dump B that dump C still holds,
        by allocation site (file:line and class), gem and class, sorted by retained bytes. Dumps are streamed
        once, never held, and never shown: they hold the app's data, and are written mode 0600.
        Exit status: as `mallard soak`; 65 when there are not three dumps with allocation info to compare.

        #{MeasureOptions::TARGETS}
      TEXT

      def initialize(**)
        super
        @measure.soak.concurrency = Analysis::HeapSummary::CONCURRENCY # --concurrency still overrides it
      end

      def run(argv)
        return diff(argv.drop(1)) if argv.first == "diff"

        super
      end

      private

      def command = "heap"

      def banner = BANNER

      def measure(target, run_dir, argv)
        if @measure.soak.requests || @measure.soak.duration.nil?
          raise UsageError, "heap: give --duration (the dumps are taken at its quarters), not --requests"
        end

        Experiments::Heap.new(target: target, options: @measure.soak, run_dir: run_dir, reporter: reporter,
                              command_line: [command, *argv], user: @measure.user, notice: notice).call
      rescue UsageError
        run_dir.discard
        raise
      end

      # Progress lines go to stderr unless --json asked for quiet.
      def notice = @cli[:json] ? nil : ->(line) { @err.puts(line) }

      # Three dumps the user has: nothing is started, no run directory is made.
      def diff(argv)
        paths = diff_parser.parse(argv)
        return 0 if help_printed?
        raise UsageError, "heap diff: give three dumps, A B C, in the order they were taken" unless paths.size == 3

        HtmlOutput.check!(@cli[:html])
        figures = Analysis::HeapRetention.call(Run::HeapDumps.new(paths))
        summary = Summary::Heap.from_h(kind: "heap", schema_version: Run::Directory::SCHEMA_VERSION,
                                       status: "complete", **figures)
        show(summary)
        HtmlOutput.write(@cli[:html], @err, summary: summary, meta: Run::Meta.new)
        0
      rescue OptionParser::ParseError => e
        raise UsageError, "heap diff: #{e.message} (see `mallard heap --help`)"
      end

      def diff_parser
        Parser.new do |opts|
          opts.banner = BANNER
          define_view_options(opts)
        end
      end
    end
  end
end
