# frozen_string_literal: true

require_relative "../agent/mappings"

module Mallard
  module Analysis
    # The sampler's readings of each process's mappings (Probe::Sampler, every few seconds from outside the app), joined
    # to the memory ledger's readings (Agent::Ledger, every few seconds from inside): a ledger reading gets the stacks
    # and the transient heap as last read at or before it, and the PSS of a mappings reading only when it is that
    # reading's nearest in its process, within MAX_SKEW_S. A PSS is true only of its moment; split by parts read seconds
    # away, a growing process's would be split wrongly (a 30 s old PSS split a script's 1.3 GB RSS as 0.2 GB). A ledger
    # reading that read its own mappings (MALLARD_MAPPINGS_INTERVAL) keeps them.
    module LedgerMappings
      MAX_SKEW_S = 1.5
      CARRIED = Agent::Mappings::CARRIED.map(&:to_sym).freeze

      module_function

      # @param records [Array<Run::LedgerRecord>] in time order
      # @param samples [Array<Run::ProcessSample>] in time order
      # @return [Array<Run::LedgerRecord>]
      def call(records, samples)
        mapped = samples.select(&:stacks_kb).group_by(&:pid)
        return records if mapped.empty?

        nearest = nearest(records, mapped)
        records.map { |record| joined(record, nearest[record], last_read(mapped[record.pid], record.t)) }
      end

      # {ledger reading => the mappings reading it is nearest to}, by identity. Both lists are in time order, so each
      # mappings reading looks up its neighbours by bisection.
      def nearest(records, mapped)
        records.group_by(&:pid).each_with_object({}.compare_by_identity) do |(pid, readings), found|
          Array(mapped[pid]).each do |sample|
            record = neighbours(readings, sample.t).min_by { |reading| (reading.t - sample.t).abs }
            found[record] = sample if (record.t - sample.t).abs <= MAX_SKEW_S
          end
        end
      end

      # The readings just before and at or after `time`: one of them is the nearest.
      def neighbours(readings, time)
        after = readings.bsearch_index { |reading| reading.t >= time } || readings.size
        readings[[after - 1, 0].max..after]
      end

      def last_read(samples, time)
        return unless samples

        after = samples.bsearch_index { |sample| sample.t > time } || samples.size
        samples[after - 1] if after.positive?
      end

      def joined(record, own, last)
        read = own || last
        return record if record.stacks_kb || read.nil?

        fields = CARRIED.to_h { |key| [key, read[key]] }
        fields.merge!(pss_kb: own.pss_kb, file_pss_kb: own.file_pss_kb, mappings_t: own.t) if own
        Run::LedgerRecord.new(**record.to_h.merge(fields))
      end

      private_class_method :nearest, :neighbours, :last_read, :joined
    end
  end
end
