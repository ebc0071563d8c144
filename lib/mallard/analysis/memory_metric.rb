# frozen_string_literal: true

module Mallard
  module Analysis
    # The one rule for which memory figure judges a run: RSS counts pages shared between a preforking server's
    # workers once per worker, PSS divides them among their sharers, so with several processes only summed PSS
    # adds up to what the machine spends; with one process RSS is the figure everyone else quotes.
    module MemoryMetric
      PSS = :pss_kb
      RSS = :rss_kb

      module_function

      # @param process_counts [Array<Integer, nil>] the most processes each run had
      def for(process_counts)
        process_counts.any? { |count| count.to_i > 1 } ? PSS : RSS
      end

      # A metric as a summary stores it (a String, once reloaded) is PSS.
      def pss?(metric) = metric.to_s == PSS.to_s
    end
  end
end
