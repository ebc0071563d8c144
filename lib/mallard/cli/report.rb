# frozen_string_literal: true

module Mallard
  class CLI
    # mallard report RUN_DIR [--json] [--html FILE]. Not named Report: inside CLI that name would shadow
    # Mallard::Report for every command that says Report::Json.
    class ReportCommand < Command
      BANNER = <<~TEXT
        Usage: mallard report [options] RUN_DIR

        Shows a stored run again — a soak, a comparison or a boot, finished or interrupted — as the
        command that made it did. A soak or a boot killed before it wrote summary.json is summarised
        from its raw samples. Exit status: 0 shown, 64 bad usage, 65 written by a newer mallard,
        66 not a mallard run (or a comparison without its summary: its soak runs are listed, to
        report one by one).
      TEXT

      def run(argv)
        path = parse(argv)
        return 0 if help_printed?

        HtmlOutput.check!(@cli[:html])
        opened = part(RunKind.open(path))
        refuse_html(opened.kind)
        notes(opened)
        show(opened.summary)
        HtmlOutput.write(@cli[:html], @err, summary: opened.summary, meta: opened.run.meta,
                                            soaks: opened.kind.html_soaks(opened.run))
        0
      end

      private

      def parse(argv)
        operands = parser.parse(argv)
        return if @cli[:help]
        raise UsageError, "give one run directory" unless operands.size == 1

        operands.first
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "report: #{e.message} (see `mallard report --help`)"
      end

      def parser
        Parser.new do |opts|
          opts.banner = BANNER
          opts.on("--soak", "a heap run: show the soak that ran while it took its dumps") { @cli[:soak] = true }
          define_view_options(opts)
        end
      end

      # --soak: a heap run's soak, reported as a run of its own.
      def part(opened)
        @cli[:soak] && opened.kind.respond_to?(:soak) ? opened.kind.soak(opened) : opened
      end

      def refuse_html(kind)
        return if kind.html? || !@cli[:html]

        raise UsageError, "report: a #{kind.name} run has no HTML view; show it in the terminal or with --json"
      end

      # stderr, so --json output stays one JSON object.
      def notes(opened)
        where = Text.printable(opened.run.path)
        summary = opened.summary
        if opened.recomputed?
          @err.puts "mallard: #{where} has no summary.json; summarised from its raw files#{ending(summary)}"
        end
        skipped = opened.kind.skipped_lines(opened.run, summary)
        return unless skipped.positive?

        @err.puts "mallard: #{where}: #{skipped} damaged line(s) in its records were skipped"
      end

      # A boot failure or an interruption says what happened; only a run that never said how it ended is
      # "never finished". A run whose reason is data (a heap run's missing dumps) has it said by the view below.
      def ending(summary)
        case summary.status
        when "complete" then ""
        when "running" then " — the run never finished (mallard was killed, or it is still running)"
        else " — #{summary.status}#{": #{summary.reason}" if summary.reason}"
        end
      end
    end
  end
end
