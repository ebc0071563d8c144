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
        run = Run::Stored.open(path)
        summary = run.summary
        note_recomputed(run) if run.recomputed?
        render(run, summary)
        HtmlOutput.write(run.path, @cli[:html], @err)
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

      # stderr, so --json output stays one JSON object.
      def note_recomputed(run)
        status = run.summary["status"]
        unfinished = status == "complete" ? "" : " — the run never finished (killed, or still running)"
        @err.puts "mallard: #{Text.printable(run.path)} has no summary.json; summarised from its raw files#{unfinished}"
      end

      def render(run, summary)
        return Report::Json.new(summary).render(@out) if @cli[:json]

        color = Report::Color.for(@out, env: @env)
        view = if run.kind == "compare"
                 Report::CompareTerminal.new(summary, color: color)
               else
                 Report::SoakTerminal.new(summary, samples: run.samples, color: color)
               end
        view.render(@out)
      end
    end
  end
end
