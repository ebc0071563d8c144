# frozen_string_literal: true

module Mallard
  module Report
    # How to deploy a recommendation's process shape (`compare --shape`): the lines of config/puma.rb that make the tree
    # measured (workers, threads, preload_app!, fork_worker, a before_fork hook), and the variables Rails' generated
    # config/puma.rb reads for the counts (WEB_CONCURRENCY, RAILS_MAX_THREADS); for a Pitchfork shape its config file
    # and the Gemfile line. Shown for the shape chosen whether or not it is the baseline's: mallard does not know the
    # shape the app runs in production, only the ones it measured. The counts come from the row's shape, parsed again
    # (PumaShape), so nothing but digits and the variant's own words reach the text.
    module ShapeSnippets
      TITLES = { puma_shape: "Puma shape (config/puma.rb)",
                 shape_environment: "Or by environment (Rails' generated config/puma.rb reads these)",
                 pitchfork: "Pitchfork (config/pitchfork.rb; Gemfile: gem \"pitchfork\")" }.freeze

      SINGLE = "# single mode: no workers line (or workers 0), nothing to preload"
      FORK_WORKER_PRELOAD = "# no preload_app!: Puma 5 does not refork a preloaded app (its phased restart is off " \
                            "then); Puma 6 and later preload in cluster mode by default and refork all the same"

      module_function

      # @param row [Summary::Row] the recommended configuration
      # @return [Hash{String=>String}] title => text; empty for a row with no shape
      def titled(row)
        return {} unless row&.shape

        shape = PumaShape.parse(row.shape)
        return { TITLES[:pitchfork] => pitchfork_config(shape) } if shape.pitchfork?

        { puma_shape: puma_config(shape), shape_environment: environment(shape) }.transform_keys { |key| TITLES[key] }
      end

      def puma_config(shape)
        lines = ["# the #{shape.label} shape measured: #{tree(shape)}",
                 "threads #{shape.threads}, #{shape.threads}"]
        lines += shape.cluster? ? ["workers #{shape.workers}", *forking(shape)] : [SINGLE]
        lines.join("\n")
      end

      def tree(shape)
        return "one process, #{shape.threads} threads (Puma's single mode)" unless shape.cluster?

        "a master and #{shape.workers} workers of #{shape.threads} threads, #{how(shape)}"
      end

      def how(shape)
        return "workers 1… forked from worker 0 and forked again after #{shape.refork_after} requests" if shape.refork?
        return "each loading the app itself" unless shape.preloaded?

        action = { "warmup" => ", which runs Process.warmup", "compact" => ", which runs a full GC and GC.compact" }
        "preloaded by the master#{action[shape.after_boot]} before it forks"
      end

      # The cluster's lines after its workers: preload_app!, fork_worker, the hook before fork.
      def forking(shape)
        return ["fork_worker #{shape.refork_after}", FORK_WORKER_PRELOAD] if shape.fork_worker?
        return [preload(shape)] unless shape.after_boot

        ["preload_app!", "before_fork do", "  #{Allocators::AfterBoot.code(shape.after_boot)}", "end"]
      end

      def preload(shape)
        return "preload_app!" if shape.preloaded?

        "# no preload_app! (Puma 5's default); Puma 6 and later preload in cluster mode unless told: preload_app! false"
      end

      def environment(shape)
        "WEB_CONCURRENCY=#{shape.workers}\nRAILS_MAX_THREADS=#{shape.threads}\n" \
          "# #{no_variable(shape)} in config/puma.rb"
      end

      def no_variable(shape)
        return "fork_worker is no variable: fork_worker #{shape.refork_after}" if shape.fork_worker?

        if shape.after_boot
          return "#{shape.after_boot} before fork is no variable: preload_app! and before_fork " \
                 "{ #{Allocators::AfterBoot.code(shape.after_boot)} }"
        end

        "preloading is no variable: #{shape.preloaded? ? 'preload_app!' : 'no preload_app!'}"
      end

      # Pitchfork's own config file: its workers (one request at a time each) and its reforks; the port is the app's.
      def pitchfork_config(shape)
        ["# the #{shape.label} shape measured: #{shape.workers} workers forked from a mold, one request at a time " \
         "each, reforked after #{shape.refork_after} requests; start with: bundle exec pitchfork -c " \
         "config/pitchfork.rb",
         "worker_processes #{shape.workers}", "listen 3000 # the app's port",
         "refork_after [#{shape.refork_after}]"].join("\n")
      end
    end
  end
end
