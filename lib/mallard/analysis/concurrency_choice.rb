# frozen_string_literal: true

module Mallard
  module Analysis
    # `--concurrency auto`: from a ramp of short loads at doubling connections (Run::Ramp), the load the app serves
    # within its latency. More connections than the app can work on at once only queue: throughput stops growing and
    # latency grows instead, until requests time out (a Rails app answering 8 req/s lost 8.4% of its requests to
    # wrk's timeouts at 10 connections). So the choice is the fewest connections that reach within BEST_SHARE of the
    # best throughput any clean step reached — clean: no errors, and p99 under a quarter of the load tool's timeout.
    module ConcurrencyChoice
      # A doubling that adds less than this share of throughput has found the knee: the ramp stops.
      GROWTH = 0.10
      BEST_SHARE = 0.9
      LATENCY_SHARE = 0.25
      MAX_CONCURRENCY = 64

      # chosen: the connections to load with (nil when no step was clean); rps and p99_ms: that step's.
      Choice = Struct.new(:chosen, :rps, :p99_ms, :best_rps, :latency_limit_ms, :steps, keyword_init: true)

      module_function

      # Whether another, doubled step can find more: the last was clean, grew throughput by GROWTH, and doubling
      # stays within MAX_CONCURRENCY.
      # @param ramp [Run::Ramp]
      def go_on?(ramp)
        last, before = ramp.steps.last(2).reverse
        return false unless last && clean?(last, ramp) && last.concurrency * 2 <= MAX_CONCURRENCY

        before.nil? || last.rps.to_f > (1 + GROWTH) * before.rps.to_f
      end

      # @param ramp [Run::Ramp]
      # @return [Choice]
      def call(ramp)
        clean = ramp.steps.select { |step| clean?(step, ramp) }
        best = clean.map { |step| step.rps.to_f }.max
        pick = clean.find { |step| step.rps.to_f >= BEST_SHARE * best } if best
        Choice.new(chosen: pick&.concurrency, rps: pick&.rps, p99_ms: pick&.p99_ms, best_rps: best,
                   latency_limit_ms: latency_limit_ms(ramp), steps: ramp.steps)
      end

      def clean?(step, ramp)
        step.errors.to_i.zero? && step.requests.to_i.positive? && step.p99_ms.to_f <= latency_limit_ms(ramp)
      end

      def latency_limit_ms(ramp) = LATENCY_SHARE * ramp.timeout_s.to_f * 1000

      private_class_method :clean?, :latency_limit_ms
    end
  end
end
