# frozen_string_literal: true

module Mallard
  module Probe
    # What the readers of a job backend's database (SolidQueueStats, GoodJobStats) share: one statement (the class's
    # QUERY, so the figures are of one moment) giving jobs finished, failed, waiting, the age of the oldest waiting in
    # milliseconds and jobs scheduled for later, read into the fields of Sidekiq's (SidekiqStats).
    module StoreStats
      # @param store [#query] the backend's store (Target::SolidQueueStore, Target::PostgresServer)
      def initialize(store)
        @store = store
      end

      # @return [Hash] processed, failed, enqueued, latency_ms (age of the oldest waiting job), retries, dead
      # @raise [Error] the store's own failure to answer
      def read
        row = @store.query(self.class::QUERY).first.map { |column| Float(column, exception: false) }
        finished, failed, enqueued, oldest_ms, scheduled = row
        { processed: (finished + failed).to_i, failed: failed.to_i, enqueued: enqueued.to_i,
          latency_ms: [oldest_ms.to_f, 0.0].max.round(1), retries: scheduled.to_i, dead: failed.to_i }
      end

      # Each read is a process of its own: nothing stays open.
      def close = nil
    end
  end
end
