# frozen_string_literal: true

module Mallard
  module Report
    # How to deploy a recommendation's Puma shape (`compare --shape`): the lines of config/puma.rb that make the tree
    # measured (workers, threads, preload_app!), and the variables Rails' generated config/puma.rb reads for the counts
    # (WEB_CONCURRENCY, RAILS_MAX_THREADS). Shown for the shape chosen whether or not it is the baseline's: mallard does
    # not know the shape the app runs in production, only the ones it measured. The counts come from the row's shape,
    # parsed again (PumaShape), so nothing but digits reaches the text.
    module ShapeSnippets
      TITLES = { puma_shape: "Puma shape (config/puma.rb)",
                 shape_environment: "Or by environment (Rails' generated config/puma.rb reads these)" }.freeze

      SINGLE = "# single mode: no workers line (or workers 0), nothing to preload"

      module_function

      # @param row [Summary::Row] the recommended configuration
      # @return [Hash{String=>String}] title => text; empty for a row with no shape
      def titled(row)
        return {} unless row&.shape

        shape = PumaShape.parse(row.shape)
        { puma_shape: puma_config(shape), shape_environment: environment(shape) }.transform_keys { |key| TITLES[key] }
      end

      def puma_config(shape)
        lines = ["# the #{shape.label} shape measured: #{tree(shape)}",
                 "threads #{shape.threads}, #{shape.threads}"]
        lines += shape.cluster? ? ["workers #{shape.workers}", preload(shape)] : [SINGLE]
        lines.join("\n")
      end

      def tree(shape)
        return "one process, #{shape.threads} threads (Puma's single mode)" unless shape.cluster?

        how = shape.preloaded? ? "preloaded by the master" : "each loading the app itself"
        "a master and #{shape.workers} workers of #{shape.threads} threads, #{how}"
      end

      def preload(shape)
        return "preload_app!" if shape.preloaded?

        "# no preload_app! (Puma 5's default); Puma 6 and later preload in cluster mode unless told: preload_app! false"
      end

      def environment(shape)
        "WEB_CONCURRENCY=#{shape.workers}\nRAILS_MAX_THREADS=#{shape.threads}\n" \
          "# preloading is no variable: #{shape.preloaded? ? 'preload_app!' : 'no preload_app!'} in config/puma.rb"
      end
    end
  end
end
