# frozen_string_literal: true

module Mallard
  module Report
    # A before/after diff for a person: which runs, one table row per metric (soaks) or configuration
    # (comparisons) with the change and its interval, how it was computed, and the --fail-over outcome.
    class DiffTerminal
      include Units

      NAMES = { "steady_rss_kb" => "steady RSS", "steady_pss_kb" => "steady PSS (summed over processes)",
                "peak_rss_kb" => "peak RSS", "rps" => "req/s", "p99_ms" => "p99 latency" }.freeze

      def initialize(result, color: Color::Plain.new)
        @result = result
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard diff — #{NAMES.fetch(@result['metric'])}, B against A (#{@result['kind']} runs)")
        %w[a b].each { |side| io.puts "  #{side.upcase}  #{describe(@result[side])}" }
        io.puts
        (table + footer).each { |line| io.puts line.empty? ? "" : "  #{line}" }
      end

      private

      def describe(run)
        recomputed = "no summary.json: summarised from its raw files" if run["recomputed"]
        parts = [run["run_dir"], run["target"], run["status"], recomputed].compact
        parts.map { |part| Text.printable(part) }.join(" · ")
      end

      def table
        first = @result["kind"] == "compare" ? "configuration" : "metric"
        header = [first, "A", "B", "change", "95% CI", ""]
        rows = @result["rows"].map { |row| cells(row) }
        widths = header.each_index.map { |i| ([header] + rows).map { |cells| cells[i].to_s.length }.max }
        ([header] + rows).map { |cells| cells.each_with_index.map { |c, i| c.to_s.ljust(widths[i]) }.join("  ").rstrip }
      end

      def cells(row)
        [row["name"], figure(row["a"]), figure(row["b"]), row["pct"] ? format("%+.1f%%", row["pct"]) : "—",
         row["ci"] ? format("%+.1f … %+.1f", *row["ci"]) : "—", verdict(row)]
      end

      def verdict(row)
        return row["note"].to_s unless row["ci"]
        return no_change(row["ci"]) unless row["significant"]

        row["worse"] ? @color.red("significant: worse") : @color.green("significant: better")
      end

      def figure(value)
        return "—" unless value.is_a?(Numeric)

        case @result["metric"]
        when "rps" then format("%.1f req/s", value)
        when "p99_ms" then format("%.1f ms", value)
        else mb(value)
        end
      end

      def footer
        lines = ["", @color.dim(method_line)]
        lines << "only in A: #{@result['only_in_a'].join(', ')}" if Array(@result["only_in_a"]).any?
        lines << "only in B: #{@result['only_in_b'].join(', ')}" if Array(@result["only_in_b"]).any?
        gate = @result["fail_over"]
        lines << fail_over_line(gate) if gate
        lines
      end

      def method_line
        batches = @result["rows"].first&.fetch("batches", nil)
        batches ? "#{@result['method']} (A #{batches[0]}, B #{batches[1]} batches)" : @result["method"]
      end

      def fail_over_line(gate)
        return @color.red("failed --fail-over: #{gate['reason']}") if gate["failed"]

        format("passed --fail-over: no significant change worse than %g%%", gate["threshold_pct"])
      end
    end
  end
end
