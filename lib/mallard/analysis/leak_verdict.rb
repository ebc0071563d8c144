# frozen_string_literal: true

require_relative "statistics"
require_relative "significance"
require_relative "batch_means"

module Mallard
  module Analysis
    # Decides whether memory grows with the work done, from the steady-state window of a run.
    #
    # Consecutive memory samples are strongly autocorrelated (a heap that is high now is high a second later),
    # so a least-squares interval over the raw samples is far too narrow and calls noisy plateaus "growing".
    # Instead the window is cut into k contiguous batches (k = n/3 within 3..10) and the batch means of memory
    # are regressed on the batch means of requests, with Student t on k - 2 df: batches long enough to forget
    # each other are close to independent, and the few df widen the interval honestly. Drift slower than a
    # batch still leaves the interval somewhat narrow (about 15% false significance for AR(1) at 0.9 with batches
    # of 12), which is one reason the rule below also asks for growth beyond a tolerance, not just above zero.
    #
    # The decision is practical, an equivalence test against tolerance_kb = max(1% of the median RSS, 1 MB)
    # of growth over the requests observed (span):
    # - growing:      the interval's low end is above 0 and low * span > tolerance
    # - plateaued:    max(|low|, |high|) * span < tolerance, the whole interval inside the tolerance band
    # - inconclusive: anything else, with requests_needed, the run length that would decide it (see below)
    module LeakVerdict
      # methodology names how the interval was computed.
      Verdict = Struct.new(:memory, :slope_kb_per_1k_requests, :ci, :samples, :requests_observed, :tolerance_kb,
                           :requests_needed, :methodology, keyword_init: true)
      # The rule's outcome in neutral terms, for any level and axis (see .judge).
      Judgement = Struct.new(:state, :slope, :ci, :samples, :observed, :tolerance, :needed, :methodology,
                             keyword_init: true)

      MIN_SAMPLES = 6
      # Regressed on k batch means (BatchMeans), the slope's t has k - 2 df.
      MIN_BATCHES = 3
      TOLERANCE_SHARE = 0.01
      MIN_TOLERANCE_KB = Significance::MEMORY_FLOOR_KB
      PER_REQUESTS = 1000
      # requests_needed beyond this multiple of the run is not a run anyone will do: report nil instead.
      MAX_EXTENSION = 1000
      SEARCH_STEPS = 60

      module_function

      # @param requests [Array<Numeric>] cumulative requests served at each sample
      # @param rss_kb [Array<Numeric>] memory at each sample, in KB
      # @return [Verdict]
      def call(requests:, rss_kb:)
        raise ArgumentError, "requests and rss_kb differ in length (#{requests.size}, #{rss_kb.size})" \
          unless requests.size == rss_kb.size

        judged = judge(work: requests, levels: rss_kb, min_tolerance: MIN_TOLERANCE_KB, per: PER_REQUESTS)
        Verdict.new(memory: judged.state, slope_kb_per_1k_requests: judged.slope, ci: judged.ci,
                    samples: judged.samples, requests_observed: judged.observed, tolerance_kb: judged.tolerance,
                    requests_needed: judged.needed, methodology: judged.methodology)
      end

      # The same rule for any level that should stop growing with the work done (memory in KB, the live set in
      # slots), over any axis of work (requests, seconds): the tolerance is max(1% of the median level,
      # min_tolerance), slopes and interval are per `per` units of x, needed is in units of x.
      # @return [Judgement]
      def judge(work:, levels:, min_tolerance:, per:)
        tolerance = tolerance_of(levels, min_tolerance)
        span = work.empty? ? 0 : work.max - work.min
        return unmeasured(work.size, span, tolerance) if work.size < MIN_SAMPLES || span.zero?

        fit = Statistics.linear_fit(BatchMeans.of(work, min: MIN_BATCHES), BatchMeans.of(levels, min: MIN_BATCHES))
        judgement(fit, decide(*fit.slope_ci, span, tolerance), span, work.size, tolerance).tap do |judged|
          judged.slope *= per
          judged.ci = judged.ci.map { |bound| bound * per }
        end
      end

      def judgement(fit, state, span, samples, tolerance)
        batches = batch_count(samples)
        Judgement.new(state: state, slope: fit.slope, ci: fit.slope_ci, samples: samples, observed: span,
                      tolerance: tolerance,
                      needed: state == "inconclusive" ? requests_needed(fit, span, samples, tolerance) : nil,
                      methodology: "OLS on #{batches} batch means, t with #{batches - 2} df")
      end

      def tolerance_of(levels, min_tolerance)
        return min_tolerance.to_f if levels.empty?

        [TOLERANCE_SHARE * Statistics.median(levels), min_tolerance.to_f].max
      end

      def batch_count(samples) = BatchMeans.count(samples, min: MIN_BATCHES)

      # The equivalence test above: growth beyond the tolerance over the requests observed, or the whole
      # interval inside it.
      def decide(low, high, span, tolerance)
        return "growing" if low.positive? && low * span > tolerance
        return "plateaued" if [low.abs, high.abs].max * span < tolerance

        "inconclusive"
      end

      def unmeasured(samples, span, tolerance)
        Judgement.new(state: "inconclusive", slope: nil, ci: nil, samples: samples, observed: span,
                      tolerance: tolerance, needed: nil,
                      methodology: "none: needs #{MIN_SAMPLES} samples over a nonzero span of work")
      end

      # The shortest run (requests after warm-up) at which an outcome the interval allows would be decided, at
      # the same sampling and request rates. The half-width of a regression slope over N requests shrinks as
      # N^-1.5 when the samples grow with N (N^-0.5 from more data, N^-1 from a wider lever arm); the t quantile
      # also falls while the batches grow to 10. Two outcomes are projected:
      # - growing, if the estimate is positive: it holds and (slope - half_width) * N passes the tolerance;
      # - plateaued, if the interval holds 0: the estimate is then noise, so the whole interval, offset and all,
      #   shrinks with the half-width until max(|low|, |high|) * N falls inside the tolerance.
      # nil when neither is reached within MAX_EXTENSION times the run (or memory shrinks beyond tolerance).
      def requests_needed(fit, span, samples, tolerance)
        half_width = half_width_at(fit, span, samples)
        low, high = fit.slope_ci
        runs = []
        runs << first_run(span) { |n| (fit.slope - half_width.call(n)) * n > tolerance } if fit.slope.positive?
        if low <= 0 && high >= 0
          reach = [low.abs, high.abs].max / half_width.call(span)
          runs << first_run(span) { |n| reach * half_width.call(n) * n < tolerance }
        end
        runs.compact.min&.ceil
      end

      def half_width_at(fit, span, samples)
        observed = (fit.slope_ci[1] - fit.slope_ci[0]) / 2
        quantiles = Hash.new { |known, batches| known[batches] = Statistics.t_quantile(batches - 2) }
        lambda do |n|
          scale = n.to_f / span
          t_ratio = quantiles[batch_count((samples * scale).floor)] / quantiles[batch_count(samples)]
          observed * (scale**-1.5) * t_ratio
        end
      end

      # Least N in (span, MAX_EXTENSION * span] satisfying a condition that stays true once met; bisected on log N.
      def first_run(span)
        high = span * MAX_EXTENSION.to_f
        return unless yield(high)

        low = span.to_f
        SEARCH_STEPS.times do
          middle = Math.sqrt(low * high)
          yield(middle) ? high = middle : low = middle
        end
        high
      end

      private_class_method :judgement, :tolerance_of, :batch_count, :decide, :unmeasured, :requests_needed,
                           :half_width_at, :first_run
    end
  end
end
