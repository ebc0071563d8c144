# frozen_string_literal: true

require_relative "../analysis/significance"

module Mallard
  module Report
    # How every view words what a summary found: memory in binary units (/proc counts KiB, so a "MB" of
    # KB / 1024 was a MiB all along), a change by its finding, and how a run ended. Formatting only: the
    # findings are the analysis's (Summary::Change#finding), never worked out again here.
    module Formatting
      FINDINGS = { "no_difference" => "no detectable difference" }.freeze
      # Where a Summary::Versus keeps each figure's change: % and interval, significant, finding.
      VERSUS = { memory: %i[rss_pct rss_pct_ci significant rss_finding],
                 rps: %i[rps_pct rps_pct_ci rps_significant rps_finding],
                 p99: %i[p99_pct p99_pct_ci p99_significant p99_finding],
                 cpu: %i[cpu_pct cpu_pct_ci cpu_significant cpu_finding] }.freeze

      private

      # A change against the baseline: "-12.3% (-15.0 … -9.5)" when it is different, else what the interval
      # does say — a point estimate alone would read as a finding — or, without an interval, the point change
      # and why there is none.
      # @param finding [String, nil] nil in a summary written before findings were stored (see #legacy_finding)
      def change(pct, interval, finding, note: nil)
        case finding
        when "different" then Words.change(pct, interval)
        when "no_interval" then pct ? "#{Words.change(pct)} (#{note || 'no interval'})" : note || "—"
        when "not_significant" then "not significant (#{Words.bounds(interval)})"
        when "within_noise" then noise(nil) # compare's band: its repeats measure run-to-run variation
        else FINDINGS.fetch(finding, "—")
        end
      end

      # One figure's change in a configuration's Summary::Versus (:memory, :rps or :p99); "—" for the baseline.
      def versus(baseline_change, figure)
        return "—" if baseline_change.nil?

        pct, interval, significant, finding = VERSUS.fetch(figure).map { |member| baseline_change[member] }
        return "—" if pct.nil? && finding.nil?

        change(pct, interval, finding || legacy_finding(interval, significant), note: baseline_change.note)
      end

      # A summary of schema 1 stored whether a change was significant but not what a non-significant interval
      # said; rather than judge it again, such an interval is shown as it is.
      def legacy_finding(interval, significant)
        return "different" if significant
        return "no_interval" if interval.nil?

        "not_significant"
      end

      # A soak's overall verdict as a person reads it: not_a_leak is "not a leak".
      def verdict_word(overall) = overall&.tr("_", " ")

      # Memory in MiB (/proc's kB are KiB), "—" when unknown.
      def mib(kb)
        kb ? format("%.1f MiB", kb / 1024.0) : "—"
      end

      # Memory in whole MiB, for a figure given roughly: "32 MiB".
      def whole_mib(kb) = format("%.0f MiB", kb / 1024.0)

      # A median of KiB in MiB with its 95% interval: "123.4 MiB (120.1 … 125.0)"; the median alone without one.
      # @param estimate [#median, #ci] an estimate whose figures are in KiB
      def mib_interval(estimate)
        text = mib(estimate&.median)
        estimate&.ci ? "#{text} (#{mib_range(*estimate.ci)})" : text
      end

      # An interval's bounds, given in KiB, as MiB: "120.1 … 125.0".
      def mib_range(low, high) = format("%.1f … %.1f", low / 1024.0, high / 1024.0)

      # Bytes (a heap dump's, a fleet's metric) in MiB, "—" when unknown.
      def mib_of(bytes) = mib(bytes && (bytes / 1024.0))

      # Bytes in the largest binary unit they fill: B, KiB or MiB; "—" when not recorded.
      def byte_size(value)
        return "—" if value.nil?
        return format("%.1f MiB", value / 1_048_576.0) if value >= 1_048_576
        return format("%.1f KiB", value / 1024.0) if value >= 1024

        "#{value.round} B"
      end

      # How a run that did not complete ended, in one line (nil when it completed): a failed measurement has
      # no `outcome` (verdict, recommendation) at all. reason: the kind's presenter's, where it words more than the
      # summary's reason.
      def ending(summary, outcome: "verdict", reason: summary.reason)
        reason = Text.printable(reason)
        case summary.status
        when "interrupted" then "interrupted: #{reason}"
        when "failed" then "failed measurement: #{reason}, no #{outcome}"
        when "running" then "did not finish: the run never said it ended (mallard was killed, or it is still running)"
        end
      end

      # "plateaued ×2, growing ×1": the leak verdicts of a configuration's counted runs.
      def tally(verdicts)
        counted(Array(verdicts).compact.tally) || "—"
      end

      # "oldgen ×3, nofree ×1" from { name => count }; nil when there is nothing counted.
      def counted(counts)
        counts.map { |name, n| "#{name} ×#{n}" }.join(", ") unless counts.to_h.empty?
      end

      # Digits grouped by thousands in a number or in text ("23885 requests" → "23,885 requests").
      def grouped(text) = text.to_s.gsub(/(\d)(?=(\d{3})+(?!\d))/, '\\1,')

      # A count with its thousands grouped, or a dash when the run did not record it.
      def count(value)
        value.nil? ? "—" : grouped(value.round)
      end

      # How a run's throughput, latency, CPU and failures are named (Words::WORK): requests, or a job worker's jobs.
      def work_labels(target) = Words::WORK.fetch(Words.unit_of(target))

      # "not clear of ±3.7% noise": a change whose interval lies inside the band it had to clear.
      def noise(noise_pct)
        "not clear of #{band(noise_pct)} noise"
      end

      # "±1%": the band a change's interval had to clear (Summary::Change#noise_pct; the default rule's for a
      # change stored without it).
      def band(noise_pct)
        format("±%g%%", (noise_pct || Analysis::Significance::NOISE_PCT).round(1))
      end

      # A view's labelled sections, "  Label    first line" and the rest beneath it; nil lines are left out.
      # @param sections [Array(String, Array<String, nil>)]
      def print_sections(io, sections, width)
        sections.each do |label, lines|
          Array(lines).compact.each_with_index { |line, i| io.puts "  #{(i.zero? ? label : '').ljust(width)}#{line}" }
        end
      end

      # Rows of cells as lines, each column as wide as its widest cell, two spaces apart.
      def table_lines(header, rows)
        widths = header.each_index.map { |i| ([header] + rows).map { |row| row[i].to_s.length }.max }
        ([header] + rows).map { |cells| cells.each_with_index.map { |c, i| c.to_s.ljust(widths[i]) }.join("  ").rstrip }
      end

      def plural(count, word)
        "#{count} #{word}#{'s' unless count == 1}"
      end
    end
  end
end
