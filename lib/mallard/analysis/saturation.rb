# frozen_string_literal: true

module Mallard
  module Analysis
    # Whether a load's failures were the app saturated — requests queued past the load tool's timeout — and, if so,
    # a load it would serve. A Rails app that answers 8 req/s here, loaded by 10 connections, lost 8.4% of its
    # requests to wrk's timeouts: the same as plain Puma under the same wrk, so the app's capacity, not mallard. The
    # run is still a failed measurement; what it says is what to run instead.
    #
    # The suggestion: half the connections, less the share that timed out (10 connections with 8.4% timed out give
    # 4), and an open loop at three quarters of what was served (8 req/s gives 6). By Little's law the connections
    # over the rate served are the mean time a request spends queued and served; a tail past the timeout needs that
    # mean well below it, and halving it leaves the app room for its slow pages and GC pauses.
    #
    # The judgement is data (Summary::Saturation); Report::SoakSentences#saturation words it into the failure's
    # reason.
    module Saturation
      RATE_SHARE = 0.75

      module_function

      # @param load [Summary::Load]
      # @param concurrency [Integer, nil] the connections the load kept open; nil: an open loop's
      # @param timeout_s [Numeric] the load tool's timeout
      # @return [Summary::Saturation, nil] nil unless timeouts were most of the errors
      def call(load, concurrency:, timeout_s:)
        timeouts = load&.errors_by_kind&.fetch("timeout", 0).to_i
        return unless timeouts.positive? && 2 * timeouts >= load.errors.to_i

        share = timeouts.fdiv(load.attempts.to_i.nonzero? || 1)
        Summary::Saturation.new(timeouts: timeouts, timeout_s: timeout_s, served_rps: load.rps.to_f,
                                concurrency: concurrency,
                                suggest_concurrency: concurrency && [(concurrency * (1 - share) / 2).floor, 1].max,
                                suggest_rate: [(RATE_SHARE * load.rps.to_f).round(1), 0.1].max)
      end
    end
  end
end
