# frozen_string_literal: true

require_relative "request_counts"

module Mallard
  module Exporter
    # The requests a tree served, summed over its processes for one series per method and path, which must only
    # grow, as a counter does: a worker that Puma replaces takes its counts with it, so the last ones it wrote are
    # kept (retired) and added to every later sum. A process still in the tree whose readings could not be read at
    # one scrape keeps its last counts instead: retired, they would be counted again once it is read. Each process
    # is known by its pid and start time, so one whose pid names a younger process is retired as it is replaced. The
    # sum keeps at most RequestCounts::MAX_PATHS keys, the first seen; a later one adds to its method's "other". Kept
    # by the serving process from scrape to scrape.
    class RequestTotals
      def initialize
        @last = {}
        @retired = Hash.new(0)
        @kept = {}
      end

      # @param readings [Hash{Integer=>Hash}] the readings read at this scrape, by pid (with "started", its start time)
      # @param tree [Array<Integer>] the pids of the tree now, read or not
      # @return [Hash{String=>Integer}] "request.GET:/users/:id" => requests, the tree's since it started
      def sum(readings, tree)
        fresh = readings.to_h { |pid, one| [[pid, one["started"]], requests(one)] }
        retire(@last.keys.reject { |key| live?(key, fresh, tree) })
        @last.merge!(fresh)
        totals = @retired.dup
        @last.each_value { |counts| counts.each { |key, count| totals[key] += count } }
        bounded(totals)
      end

      private

      def requests(one) = one.select { |key, _| key.start_with?(RequestCounts::PREFIX) }

      # Still in the tree, and not replaced by a younger process with its pid.
      def live?(key, fresh, tree)
        pid, started = key
        tree.include?(pid) && fresh.keys.none? { |other, other_started| other == pid && other_started != started }
      end

      def retire(keys)
        keys.each { |key| @last.delete(key).each { |name, count| @retired[name] += count } }
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
