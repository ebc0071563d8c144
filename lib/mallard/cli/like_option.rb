# frozen_string_literal: true

module Mallard
  class CLI
    # compare --like SELECTOR --prometheus URL: production's processes' conditions, as their exporter serves them over
    # the last few minutes, read before anything runs, and the comparison set as they run (Analysis::LikeProduction):
    # Puma's threads, the workers and the CPUs the command line did not set, and the load's paths in production's
    # proportions where it gave none. What the lab cannot take is kept to be said beside the result.
    class LikeOption
      WINDOW_S = 300.0
      STEP_S = 15.0

      def initialize(prometheus:, selector:, now: Time.now)
        raise UsageError, "--like needs --prometheus URL: the Prometheus that scrapes production's exporter" unless
          prometheus

        Probe::FleetQuery.conditions(selector) # a selector that is none is refused before Prometheus is asked
        @api = Probe::PrometheusApi.new(prometheus)
        @selector = selector
        @now = now.to_f
      end

      # Sets measure's threads, workers, CPUs, neighbours and paths as production runs.
      # @param measure [MeasureOptions]
      # @param lab [Summary::Conditions] the comparison as the command line set it
      # @param given [Array<String>] the options the command line gave
      # @return [Summary::Like]
      # @raise [Unavailable] Prometheus unreachable, or no process under the selector serves its conditions
      # @param copies [Boolean] whether the lab's target can run beside copies of itself (--neighbours)
      def apply(measure, lab, given:, copies:)
        production = conditions
        result = Analysis::LikeProduction.call(production, lab: lab, given: given, copies: copies)
        measure.follow(result.applied, paths: (Analysis::RequestMix.rotation(result.mix) unless result.mix.empty?))
        Summary::Like.new(prometheus: @api.display, selector: @selector, applied: result.applied,
                          production: production, differing: result.differing, mix: result.mix,
                          mix_left: result.mix_left)
      end

      private

      def conditions
        found = Probe::FleetQuery.conditions(@selector).transform_values do |query|
          @api.query_range(query, start: @now - WINDOW_S, finish: @now, step: STEP_S)
              .map { |one| Run::FleetReader.series(one) }
        end
        return Analysis::FleetConditions.call(found) if found.values.any?(&:any?)

        raise Unavailable, "--like #{@selector} matched no process serving its conditions at #{@api.display} in the " \
                           "last #{WINDOW_S.round} s; is mallard's exporter (a recent one) scraped there?"
      end
    end
  end
end
