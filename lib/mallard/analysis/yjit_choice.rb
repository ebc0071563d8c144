# frozen_string_literal: true

require_relative "statistics"
require_relative "change"
require_relative "comparison"

module Mallard
  module Analysis
    # compare --yjit off,on,16,32: which code region size YJIT needs here. Among the rows that differ only in YJIT
    # (their names less the YJIT part agree: "glibc/yjit-16", "glibc/yjit-off"), the smallest code region whose req/s
    # is not told apart from the best YJIT row's, by the one change rule (Change.call on the counted runs' req/s, its
    # finding); or, when no YJIT row's req/s is resolved above yjit-off's, that YJIT does not pay for the memory it
    # takes here. A smaller region is memory each process no longer reserves nor fills with code and metadata, so
    # among sizes that serve alike the smallest is the one to deploy.
    #
    # The decision and the changes it rests on are data (Summary::YjitChoice); Report::YjitSentences words them.
    module YjitChoice
      module_function

      # @param rows [Array<Summary::Row>] the comparison's rows (those without a YJIT mode are left out)
      # @param metric [String] the comparison's memory figure (steady_rss_kb or steady_pss_kb)
      # @return [Array<Summary::YjitChoice>] one per group with a YJIT row; empty without --yjit
      def call(rows, metric:)
        rows.select(&:yjit).group_by { |row| group(row) }.filter_map do |name, group|
          choice(name, group.select { |row| measured?(row) }, metric) if group.any? { |row| YjitMode.on?(row.yjit) }
        end
      end

      # A row's name without its YJIT part: Compare names rows RUBY/CONFIG/YJIT.
      def group(row) = row.name.delete_suffix("/#{YjitMode.label(row.yjit)}")

      def measured?(row) = !row.failed && rps(row).any?

      def choice(name, rows, metric)
        off = rows.find { |row| row.yjit == "off" }
        yjit = rows.select { |row| YjitMode.on?(row.yjit) }
        return Summary::YjitChoice.new(group: name, off: off&.name, ending: "unmeasured") if yjit.empty?

        best = yjit.max_by { |row| Statistics.median(rps(row)) }
        options = yjit.map { |row| option(row, best, off, metric) }.sort_by { |option| size_order(option) }
        Summary::YjitChoice.new(group: name, off: off&.name, best: best.name, options: options,
                                **decision(options, off))
      end

      # The smallest region not told apart from the best; nothing where YJIT gained nothing resolved over off, or a
      # change the decision rests on has no interval (a single run decides nothing).
      def decision(options, off)
        changes = options.map(&:vs_best) + (off ? options.map(&:vs_off) : [])
        return { ending: "no_interval" } if changes.any? { |change| change.ci.nil? }
        return { ending: "no_gain" } if off && options.none? { |option| above?(option.vs_off) }

        { choice: options.find { |option| option.vs_best.finding != "different" }.name }
      end

      def above?(change) = change.finding == "different" && change.pct.positive?

      def option(row, best, off, metric)
        Summary::YjitOption.new(name: row.name, mode: row.yjit, size_mib: size_mib(row),
                                vs_best: Change.call(rps(row), rps(best)),
                                vs_off: (Change.call(rps(row), rps(off)) if off),
                                memory_vs_off: (Change.call(memory(row, metric), memory(off, metric)) if off))
      end

      # The size asked, or under on the region its Ruby reserved (its run with the agent read it).
      def size_mib(row)
        asked = YjitMode.size_mib(row.yjit)
        return asked if asked

        reserved = Statistics.median(Comparison.explaining(row).map(&:yjit_region_kb).grep(Numeric))
        reserved && (reserved / 1024.0).round
      end

      # Smallest region first; a region not read last.
      def size_order(option) = [option.size_mib ? 0 : 1, option.size_mib.to_i]

      def rps(row) = row.runs.map(&:rps).grep(Numeric)
      def memory(row, metric) = row.runs.map { |run| run[metric.to_sym] }.grep(Numeric)

      private_class_method :group, :measured?, :choice, :decision, :above?, :option, :size_mib, :size_order, :rps,
                           :memory
    end
  end
end
