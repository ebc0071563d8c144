# frozen_string_literal: true

require_relative "request_counts"

module Mallard
  module Exporter
    # The requests a tree served, summed over its processes for one series per method and path, which must only
    # grow, as a counter does: a worker that Puma replaces takes its counts with it, so the last ones it wrote are
    # kept (retired) and added to every later sum. The sum keeps at most RequestCounts::MAX_PATHS keys, the first
    # seen; a later one adds to its method's "other". Kept by the serving process from scrape to scrape.
    class RequestTotals
      def initialize
        @last = {}
        @retired = Hash.new(0)
        @kept = {}
      end

      # @param readings [Hash{Integer=>Hash}] each live process's readings, by pid
      # @return [Hash{String=>Integer}] "request.GET:/users/:id" => requests, the tree's since it started
      def sum(readings)
        retire(@last.keys - readings.keys)
        @last = readings.transform_values { |one| one.select { |key, _| key.start_with?(RequestCounts::PREFIX) } }
        totals = @retired.dup
        @last.each_value { |counts| counts.each { |key, count| totals[key] += count } }
        bounded(totals)
      end

      private

      def retire(pids)
        pids.each { |pid| @last.delete(pid).each { |key, count| @retired[key] += count } }
      end

      def bounded(totals)
        totals.each_with_object({}) do |(key, count), sum|
          @kept[key] = true if !@kept.key?(key) && @kept.size < RequestCounts::MAX_PATHS
          key = "#{key[/\A[^:]+/]}:#{RequestCounts::OTHER_PATH}" unless @kept.key?(key)
          sum[key] = sum.fetch(key, 0) + count
        end
      end
    end
  end
end
