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
        @sentences = HeapSentences.new(summary)
        @color = color
      end

      def render(io)
        title = @summary.target&.description || "heap dumps"
        io.puts @color.bold("mallard heap — #{Text.printable(title)}")
        ended = heap_ending
        io.puts "  #{@summary.status == 'failed' ? @color.red(ended) : @color.yellow(ended)}" if ended
        print_sections(io, sections, LABEL)
      end

      private

      # A run whose dumps were all written has its retention whatever befell the soak: "no retention" only when
      # there is none.
      def heap_ending
        if @summary.window.nil? || @summary.status == "running"
          return ending(@summary, outcome: "retention", reason: @sentences.reason)
        end
        return if @summary.complete?

        "the soak #{@summary.status == 'failed' ? 'failed' : 'was interrupted'}: #{@sentences.reason}; " \
          "the retention below is from its three dumps, which were all written"
      end

      def sections
        return [["Dumps", dump_lines], ["Soak", soak_line]] if @summary.sites.empty? && @summary.window.nil?

        [["Retained", retained_line], ["Sites", site_lines], ["Gems", group_lines(@summary.gems)],
         ["Classes", group_lines(@summary.classes)], ["Dumps", dump_lines], ["Analysis", analysis_line],
         ["Soak", soak_line], ["Method", [@summary.methodology, @summary.tracing].compact]]
      end

      def retained_line
        [[@sentences.retained, @sentences.window].compact.join(", "), @sentences.significant,
         @sentences.conclusion].compact
      end

      def site_lines
        header = format("%-3s %10s %10s  %-22s %-18s %s", "", "bytes", "objects", "class", "gem", "site")
        rows = @summary.sites.first(SITES).map do |site|
          names = [site.class, site.gem, site.site].map { |text| Text.printable(text.to_s) }
          format("%-3s %10s %10s  %-22s %-18s %s", site.significant ? "*" : "", byte_size(site.bytes),
                 count(site.count), names[0][0, 22], names[1][0, 18], names[2])
        end
        more = @summary.sites.size - SITES
        [header, *rows, ("… #{more} more sites in --json" if more.positive?), ("(none)" if rows.empty?), *path_lines]
      end

      # How the top sites' objects are reached: one sample path each, from a GC root.
      def path_lines
        @summary.sites.select(&:path).map do |site|
          "held: #{site.path.map { |step| Text.printable(step) }.join(' → ')}"
        end.uniq
      end

      def group_lines(groups)
        line = groups.first(GROUPS).map { |group| "#{Text.printable(group.name.to_s)} #{byte_size(group.bytes)}" }
                     .join(" · ")
        line.empty? ? "—" : line
      end

      def dump_lines
        lines = @summary.dumps.each_with_index.map do |dump, index|
          taken = dump.taken_at ? format("at %.1f s, ", dump.taken_at) : ""
          written = dump.dump_s ? format(", written in %.1f s", dump.dump_s) : ""
          "#{'ABC'[index] || (index + 1)}: #{taken}#{mib_of(dump.bytes)}#{against_rss(dump)}, " \
            "#{count(dump.objects)} objects#{written} — #{Text.printable(dump.path)}"
        end
        lines.concat(wait_lines, latency_lines)
        lines << HeapSentences::DATA_WARNING
      end

      def against_rss(dump)
        return "" unless dump.rss_kb.to_i.positive? && dump.bytes

        format(" (%.1f× the app's RSS of %s)", dump.bytes / 1024.0 / dump.rss_kb, mib(dump.rss_kb))
      end

      def wait_lines
        wait = @summary.wait
        return [] unless wait

        if wait.waited_s.to_f >= 0.1
          waited = format("the run waited %.1f s after the load for its dumps",
                          wait.waited_s)
        end
        [waited, wait.gave_up && "it stopped asking for dumps: #{Text.printable(wait.gave_up)}"].compact
      end

      # mallard's own requests during the dumps, against the same requests outside them (the baseline).
      def latency_lines
        latency = @summary.latency
        return [] unless latency

        path = Text.printable(latency.path.to_s)
        during, outside = [latency.during, latency.outside].map { |figures| figures && @sentences.probe(figures) }
        [during && "mallard's requests to #{path} while a dump was taken: #{during}",
         outside && "outside the dumps, under the same load: #{outside}"].compact
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

        verdict = verdict_word(soak.verdict&.overall)
        "memory #{verdict || '—'}; #{soak.load ? "#{format('%.0f', soak.load.rps.to_f)} req/s" : 'no load'} " \
          "(mallard report --soak #{Text.printable(soak.run_dir.to_s)} shows the soak)"
      end
    end
  end
end
