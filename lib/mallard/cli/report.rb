# frozen_string_literal: true

module Mallard
  class CLI
    # mallard report RUN_DIR [--json] [--html FILE]. Not named Report: inside CLI that name would shadow
    # Mallard::Report for every command that says Report::Json.
    class ReportCommand < Command
      BANNER = <<~TEXT
        Usage: mallard report [options] RUN_DIR

        Shows a stored run again — a soak or a comparison, finished or interrupted — as the command
        that made it did. A soak killed before it wrote summary.json is summarised from its raw
        samples. Exit status: 0 shown, 64 bad usage, 66 not a mallard run (or a comparison without
        its summary: its soak runs are listed, to report one by one).
      TEXT

      def run(argv)
        path = parse(argv)
        return 0 if help_printed?

        HtmlOutput.check!(@cli[:html])
        run = Run::Reader.open(path)
        summary = summary_of(run)
        notes(run, summary)
        render(summary)
        HtmlOutput.write(@cli[:html], @err, summary: summary, meta: run.meta, soaks: soaks_of(run))
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
          opts.on("--json", "print the summary as JSON") { @cli[:json] = true }
          HtmlOutput.define(opts, @cli)
          opts.on("-h", "--help", "show this help") { @cli[:help] = opts.help }
        end
      end

      def summary_of(run)
        run.is_a?(Run::CompareRun) ? Analysis::CompareSummary.for(run) : Analysis::SoakSummary.for(run)
      end

      def soaks_of(run)
        run.is_a?(Run::CompareRun) ? Analysis::CompareSummary.soaks(run) : {}
      end

      # stderr, so --json output stays one JSON object.
      def notes(run, summary)
        where = Text.printable(run.path)
        if recomputed?(run)
          @err.puts "mallard: #{where} has no summary.json; summarised from its raw files#{ending(summary)}"
        end
        return unless summary.respond_to?(:skipped_lines) && summary.skipped_lines.to_i.positive?

        @err.puts "mallard: #{where}: #{summary.skipped_lines} damaged line(s) in its records were skipped"
      end

      # A boot failure or an interruption says what happened; only a run that never said how it ended is
      # "never finished".
      def ending(summary)
        case summary.status
        when "complete" then ""
        when "running" then " — the run never finished (mallard was killed, or it is still running)"
        else " — #{summary.status}: #{summary.reason}"
        end
      end

      def recomputed?(run) = run.is_a?(Run::SoakRun) && run.summary.nil?

      def render(summary)
        return Report::Json.new(summary).render(@out) if @cli[:json]

        color = Report::Color.for(@out, env: @env)
        view = summary.kind == "compare" ? Report::CompareTerminal : Report::SoakTerminal
        view.new(summary, color: color).render(@out)
      end
    end
  end
end
