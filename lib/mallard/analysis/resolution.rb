# frozen_string_literal: true

module Mallard
  module Analysis
    # Whether a comparison has run enough repeats (compare --until-resolved PCT): every configuration's memory and
    # CPU-per-request intervals against the baseline narrower than ±PCT. What is left unresolved is named with its
    # half-width, or with why it has no interval yet (one run, no CPU figures).
    module Resolution
      FIGURES = { "memory" => :rss_pct_ci, "CPU per request" => :cpu_pct_ci }.freeze

      module_function

      # @param configs [Array<Summary::Config>]
      # @param pct [Float] the half-width every interval must be under, in points
      # @return [Summary::Resolution]
      def call(configs, pct:, baseline:)
        compared = configs.select { |config| config.repeats.to_i.positive? && config.name != baseline }
        unresolved = compared.flat_map { |config| unresolved(config, pct) }
        Summary::Resolution.new(pct: pct, unresolved: unresolved, resolved: unresolved.empty?)
      end

      def unresolved(config, pct)
        FIGURES.filter_map do |figure, member|
          interval = config.vs_baseline&.public_send(member)
          next "#{config.name} #{figure}: no interval yet" unless interval

          half_width = (interval[1] - interval[0]) / 2.0
          format("%s %s: ±%.1f points", config.name, figure, half_width) if half_width >= pct
        end
      end

      private_class_method :unresolved
    end
  end
end
