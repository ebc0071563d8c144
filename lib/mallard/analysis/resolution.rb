# frozen_string_literal: true

module Mallard
  module Analysis
    # Whether a comparison has run enough repeats (compare --until-resolved PCT): every configuration's memory and
    # CPU-per-request intervals against the baseline narrower than ±PCT points. What is left unresolved is kept as
    # data — which configuration, which figure, its half-width, or none when it has no interval yet (one run, no CPU
    # figures) — and worded by Report::CompareSentences#unresolved.
    module Resolution
      # The figures that must resolve ("memory", "cpu": Summary::Move's names), by where a Summary::Versus keeps each
      # one's interval.
      FIGURES = { "memory" => :rss_pct_ci, "cpu" => :cpu_pct_ci }.freeze

      module_function

      # @param configs [Array<Summary::Config>]
      # @param pct [Float] the half-width every interval must be under, in points
      # @return [Summary::Resolution]
      def call(configs, pct:, baseline:)
        compared = configs.select { |config| config.repeats.to_i.positive? && config.name != baseline }
        too_wide = compared.flat_map { |config| too_wide(config, pct) }
        Summary::Resolution.new(pct: pct, too_wide: too_wide, resolved: too_wide.empty?)
      end

      def too_wide(config, pct)
        FIGURES.filter_map do |figure, member|
          interval = config.vs_baseline&.public_send(member)
          half_width = interval && ((interval[1] - interval[0]) / 2.0)
          next if half_width && half_width < pct

          Summary::Unresolved.new(name: config.name, figure: figure, half_width: half_width)
        end
      end

      private_class_method :too_wide
    end
  end
end
