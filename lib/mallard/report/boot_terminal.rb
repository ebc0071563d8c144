# frozen_string_literal: true

module Mallard
  module Report
    # A boot's summary for a person: the total and its parts, the require tree as derailed's bundle:mem shows it
    # (inclusive MiB, "also required by"), the per-gem rollup, and after-fork sharing. Formatting only.
    class BootTerminal
      include Formatting

      LABEL = 9
      GEM_ROWS = 25

      # @param summary [Summary::Boot]
      def initialize(summary, color: Color::Plain.new)
        @summary = summary
        @sentences = BootSentences.new(summary)
        @color = color
      end

      def render(io)
        io.puts @color.bold("mallard boot — #{Text.printable(@summary.target&.description || @summary.app)}")
        warnings.each { |line| io.puts "  #{line}" }
        return unless @summary.total

        print_sections(io, sections, LABEL)
      end

      private

      def warnings
        ended = ending(@summary, outcome: "tree")
        lines = []
        lines << (@summary.status == "failed" ? @color.red(ended) : @color.yellow(ended)) if ended
        lines + @summary.failures.map do |failure|
          @color.yellow("repeat #{failure.repeat} failed: #{Text.printable(failure.reason)}" \
                        "#{" (#{Text.printable(failure.where)})" if failure.where}")
        end
      end

      def sections
        [["Total", total_lines], ["Parts", part_lines], ["Tree", tree_lines], ["Gems", gem_lines],
         ["Workers", fork_lines], ["Method", method_lines]]
      end

      def total_lines
        total = @summary.total
        ["#{@sentences.total}, #{plural(@summary.repeats, 'repeat')}; #{@sentences.growth}",
         "#{count(total.objects)} objects allocated during the boot; #{@sentences.retained}; memsize_of_all " \
         "#{mib(total.memsize_kb)}"]
      end

      def part_lines
        parts = @summary.total.parts
        malloc = parts.malloc_kb ? mib(parts.malloc_kb) : @sentences.malloc_not_read
        ["file-backed #{mib(parts.file_kb)} · Ruby heap #{mib(parts.heap_kb)} · malloc #{malloc} · " \
         "unexplained #{mib(parts.unexplained_kb)} (anonymous in all #{mib(parts.anon_kb)})"]
      end

      def tree_lines
        lines = ["requires of #{format('%g', @summary.cutoff_kb / 1024.0)} MiB or more, inclusive, median " \
                 "(95% interval)#{'; ? = the interval includes zero' if uncertain_anywhere?}"]
        @summary.tree.each { |node| node_lines(node, 0, lines) }
        lines
      end

      def node_lines(node, depth, lines)
        lines << "#{'  ' * depth}#{Text.printable(node.name)}: #{mib(node.rss_kb)}#{interval(node.ci)}" \
                 "#{' ?' if node.uncertain}#{also(node)}"
        node.children.each { |child| node_lines(child, depth + 1, lines) }
      end

      def also(node)
        names = Array(node.also_required_by)
        return "" if names.empty?

        shown = names.first(3).map { |name| Text.printable(name) }.join(", ")
        " (also required by: #{shown}#{", and #{names.size - 3} more" if names.size > 3})"
      end

      def uncertain_anywhere?
        walk = ->(nodes) { nodes.any? { |node| node.uncertain || walk.call(node.children) } }
        walk.call(@summary.tree)
      end

      def gem_lines
        header = format("%-28s %10s %9s %9s %9s %10s %12s %10s", "", "RSS MiB", "file", "heap", "malloc",
                        "unexplained", "objects", "retained")
        rows = @summary.gems.first(GEM_ROWS).map { |gem| gem_row(gem) }
        more = @summary.gems.size - GEM_ROWS
        [header, *rows, ("… #{more} more in --json and --html" if more.positive?)]
      end

      def gem_row(gem)
        parts = gem.parts
        columns = [parts.file_kb, parts.heap_kb, parts.malloc_kb, parts.unexplained_kb]
        format("%-28s %10s %9s %9s %9s %10s %12s %10s", Text.printable(gem.name)[0, 28],
               format("%.2f%s", gem.rss_kb / 1024.0, gem.uncertain ? "?" : ""),
               *columns.map { |kb| kb ? format("%.2f", kb / 1024.0) : "—" }, count(gem.objects),
               count(gem.retained_objects))
      end

      def fork_lines
        fork = @summary.fork
        return unless fork

        [format("%d workers, each after one GC: RSS %s, PSS %s; %s (%.0f%%) still shared with the master, %s " \
                "copy-on-write", fork.workers, mib(fork.worker_rss_kb), mib(fork.worker_pss_kb), mib(fork.shared_kb),
                fork.shared_pct.to_f, mib(fork.copy_on_write_kb)),
         "a worker's PSS: file-backed #{mib(fork.pss_file_kb)}, anonymous #{mib(fork.pss_anon_kb)}; master and " \
         "workers together #{mib(fork.total_pss_kb)} PSS, which RSS would count as #{mib(fork.total_rss_kb)}"]
      end

      def method_lines
        [@summary.methodology.to_s, @sentences.malloc_stopped]
      end

      def interval(bounds)
        return "" unless bounds

        " (#{mib_range(*bounds)})"
      end
    end
  end
end
