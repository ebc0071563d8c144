# frozen_string_literal: true

module Mallard
  module Report
    # A heap summary for a person: what the app kept between the dumps, by allocation site, gem and class; the
    # dumps and how the app answered while they were written; how fast they were read. Sizes and sites only:
    # no value from a dump is ever shown.
    class HeapTerminal
      include Formatting

      LABEL = 10
      SITES = 15
      GROUPS = 8

      # @param summary [Summary::Heap]
      def initialize(summary, color: Color::Plain.new)
        @summary = summary
        @color = color
      end

      def render(io)
        title = @summary.target&.description || "heap dumps"
        io.puts @color.bold("mallard heap — #{Text.printable(title)}")
        ended = ending(@summary, outcome: "retention")
        io.puts "  #{@summary.status == 'failed' ? @color.red(ended) : @color.yellow(ended)}" if ended
        print_sections(io, sections, LABEL)
      end

      private

      def sections
        return [["Dumps", dump_lines], ["Soak", soak_line]] if @summary.sites.empty? && @summary.window.nil?

        [["Retained", retained_line], ["Sites", site_lines], ["Gems", group_lines(@summary.gems)],
         ["Classes", group_lines(@summary.classes)], ["Dumps", dump_lines], ["Analysis", analysis_line],
         ["Soak", soak_line], ["Method", [@summary.method, @summary.tracing].compact]]
      end

      def retained_line
        window = @summary.window || {}
        format("%s objects, %s, allocated between dump A and dump B (generations %s to %s) and still alive in " \
               "dump C; a site is significant from %s", count(@summary.retained_count), mib_of(@summary.retained_bytes),
               window["from"].to_i + 1, window["to"], mib_of(@summary.significant_bytes))
      end

      def site_lines
        header = format("%-3s %10s %10s  %-22s %-18s %s", "", "bytes", "objects", "class", "gem", "site")
        rows = @summary.sites.first(SITES).map do |site|
          names = [site.class, site.gem, site.site].map { |text| Text.printable(text.to_s) }
          format("%-3s %10s %10s  %-22s %-18s %s", site.significant ? "*" : "", bytes(site.bytes), count(site.count),
                 names[0][0, 22], names[1][0, 18], names[2])
        end
        more = @summary.sites.size - SITES
        [header, *rows, ("… #{more} more sites in --json" if more.positive?), ("(none)" if rows.empty?), *path_lines]
      end

      # How the top sites' objects are reached: one sample path each, from a GC root.
      def path_lines
        @summary.sites.select(&:path).map do |site|
          "held: #{site.path.map { |step| Text.printable(step) }.join(' → ')}"
        end
      end

      def group_lines(groups)
        line = groups.first(GROUPS).map { |group| "#{Text.printable(group.name.to_s)} #{bytes(group.bytes)}" }
                     .join(" · ")
        line.empty? ? "—" : line
      end

      def dump_lines
        lines = @summary.dumps.each_with_index.map do |dump, index|
          taken = dump.taken_at ? format("at %.1f s, ", dump.taken_at) : ""
          written = dump.dump_s ? format(", written in %.1f s", dump.dump_s) : ""
          "#{'ABC'[index] || (index + 1)}: #{taken}#{mib_of(dump.bytes)}, #{count(dump.objects)} objects#{written} — " \
            "#{Text.printable(dump.path)}"
        end
        lines << latency_line if @summary.latency
        lines << "the dumps hold the app's data (its strings): mallard writes its own mode 0600; share with care"
      end

      def latency_line
        latency = @summary.latency
        format("while they were written the app answered %s requests from mallard: median %.1f ms, slowest %.1f ms, " \
               "%s failed", count(latency.requests), latency.p50_ms.to_f, latency.max_ms.to_f, count(latency.errors))
      end

      def analysis_line
        analysis = @summary.analysis
        return unless analysis

        format("read %s of dumps in %.2f s: %.0f MB/s; mallard's peak RSS %s", mib_of(analysis.bytes),
               analysis.seconds.to_f, analysis.mb_per_s.to_f, mib(analysis.peak_rss_kb))
      end

      def soak_line
        soak = @summary.soak
        return unless soak

        verdict = soak.verdict&.overall
        "memory #{verdict || '—'}; #{soak.load ? "#{format('%.0f', soak.load.rps.to_f)} req/s" : 'no load'} " \
          "(mallard report #{Text.printable(soak.run_dir.to_s)} shows the soak)"
      end

      def bytes(value)
        return "—" unless value
        return format("%.1f MiB", value / 1_048_576.0) if value >= 1_048_576
        return format("%.1f KiB", value / 1024.0) if value >= 1024

        "#{value} B"
      end

      def mib_of(value) = value ? format("%.1f MiB", value / 1_048_576.0) : "—"
    end
  end
end
