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

      # The terminal view of each kind of summary; a soak's (a gc run's too) otherwise.
      TERMINAL_VIEWS = { "compare" => Report::CompareTerminal, "boot" => Report::BootTerminal,
                         "heap" => Report::HeapTerminal, "fleet" => Report::FleetTerminal }.freeze

      def run(argv)
        path = parse(argv)
        return 0 if help_printed?

        HtmlOutput.check!(@cli[:html])
        run = Run::Reader.open(path)
        refuse_html(run)
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
          opts.on("--soak", "a heap run: show the soak that ran while it took its dumps") { @cli[:soak] = true }
          define_view_options(opts)
        end
      end

      # The summary the run stored, as its command printed it; summarised again from the raw files only when it
      # has none.
      def summary_of(run)
        case run
        when Run::CompareRun then Analysis::CompareSummary.for(run)
        when Run::BootRun then run.summary || Analysis::BootSummary.call(run)
        when Run::HeapRun then @cli[:soak] ? Analysis::SoakSummary.for(run.soak) : heap_summary(run)
        when Run::FleetRun then run.summary || Analysis::FleetSummary.call(run)
        else Analysis::SoakSummary.for(run)
        end
      end

      def heap_summary(run) = run.summary || Analysis::HeapSummary.call(run)

      def refuse_html(run)
        return unless @cli[:html] && run.is_a?(Run::FleetRun)

        raise UsageError, "report: a fleet run has no HTML view; show it in the terminal or with --json"
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
        skipped = skipped_lines(run, summary)
        return unless skipped.positive?

        @err.puts "mallard: #{where}: #{skipped} damaged line(s) in its records were skipped"
      end

      # A soak's summary counts the lines it skipped; a boot's records matter only when summarised from them.
      def skipped_lines(run, summary)
        return summary.skipped_lines.to_i if summary.respond_to?(:skipped_lines)

        run.is_a?(Run::BootRun) && recomputed?(run) ? run.skipped.to_i : 0
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

      # Runs whose summary mallard can compute again from their raw files.
      RECOMPUTABLE = [Run::SoakRun, Run::BootRun, Run::HeapRun].freeze

      def recomputed?(run) = RECOMPUTABLE.any? { |kind| run.is_a?(kind) } && run.summary.nil?

      def render(summary)
        return Report::Json.new(summary).render(@out) if @cli[:json]

        color = Report::Color.for(@out, env: @env)
        TERMINAL_VIEWS.fetch(summary.kind, Report::SoakTerminal).new(summary, color: color).render(@out)
      end
    end
  end
end
