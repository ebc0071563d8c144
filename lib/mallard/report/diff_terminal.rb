# frozen_string_literal: true

module Mallard
  module Report
    # A before/after diff for a person: which runs, one table row per metric (soaks) or configuration
    # (comparisons) with the change, its interval and what it means, how it was computed, and the
    # --fail-over outcome. Run directories and targets are printed through Text.printable.
    class DiffTerminal
      include Formatting

      # @param diff [Summary::Diff]
      def initialize(diff, color: Color::Plain.new)
        @diff = diff
        @sentences = DiffSentences.new(diff)
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard diff — #{Words.metric(@diff.metric, unit)}, B against A (#{@diff.kind} runs)")
        { "A" => @diff.a, "B" => @diff.b }.each { |side, run| io.puts "  #{side}  #{describe(run)}" }
        io.puts
        (table + footer).each { |line| io.puts line.empty? ? "" : "  #{line}" }
      end

      private

      def describe(run)
        return "—" unless run

        recomputed = "no summary.json: summarised from its raw files" if run.recomputed
        [run.run_dir, run.target, run.status, recomputed].compact.map { |part| Text.printable(part) }.join(" · ")
      end

      # The first column is what each row is, which the kind of run says (RunKind#diff_row).
      def table
        first = RunKind.named(@diff.kind).diff_row
        table_lines([first, "A", "B", "change (95% CI)", ""], @diff.rows.map { |row| cells(row) })
      end

      def cells(row)
        [Text.printable(row.name), figure(row.a), figure(row.b), row.pct ? Words.change(row.pct, row.ci) : "—",
         verdict(row)]
      end

      # What the runs' work was counted in: requests, or a job worker's jobs.
      def unit = @diff.unit || "requests"

      # What the change means, by its finding; the figures are in the columns before.
      def verdict(row)
        case row.finding || legacy_finding(row.ci, row.significant)
        when "no_interval" then row.note.to_s
        when "different" then row.worse ? @color.red("significant: worse") : @color.green("significant: better")
        when "not_significant" then "not significant"
        when "within_noise" then noise(row.noise_pct)
        else FINDINGS.fetch(row.finding, "")
        end
      end

      def figure(value)
        return "—" unless value.is_a?(Numeric)

        case @diff.metric
        when "rps" then format("%.1f %s", value, Words::WORK.fetch(unit)[:rate])
        when "p99_ms" then format("%.1f ms", value)
        when "cpu_ms_per_request" then format("%.3f ms", value)
        when /_kb\z/ then mib(value)
        else format("%.4g", value)
        end
      end

      def footer
        lines = ["", @color.dim(method_line)]
        { "A" => @diff.only_in_a, "B" => @diff.only_in_b }.each do |side, names|
          lines << "only in #{side}: #{names.map { |name| Text.printable(name) }.join(', ')}" if Array(names).any?
        end
        lines << fail_over_line(@diff.fail_over) if @diff.fail_over
        lines
      end

      # For two soaks' batch means, what the interval can and cannot see (the row's note).
      def method_line
        row = @diff.rows.first
        return @diff.methodology.to_s unless row&.batches

        "#{@diff.methodology} (A #{row.batches[0]}, B #{row.batches[1]} batches); #{row.note}"
      end

      def fail_over_line(gate)
        return @color.red("failed --fail-over: #{@sentences.fail_over}") if gate.failed

        format("passed --fail-over: no significant change worse than %g%%", gate.threshold_pct)
      end
    end
  end
end
