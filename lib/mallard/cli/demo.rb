# frozen_string_literal: true

module Mallard
  class CLI
    # mallard demo: `compare` on the bundled example app, with settings that finish in about
    # three minutes on two cores. Options given are passed on to compare and win over these.
    class Demo
      APP = File.expand_path("../../../examples/demo", __dir__)
      CONFIGS = %w[glibc glibc-arena2 glibc-trim jemalloc jemalloc-tuned].freeze
      SETTINGS = ["--allocators", CONFIGS.join(","), "--repeat", "3", "--duration", "10", "--threads", "8",
                  "--concurrency", "16"].freeze

      def initialize(out:, err:, env:)
        @compare = Compare.new(out: out, err: err, env: env)
      end

      def run(argv)
        @compare.run([*SETTINGS, *argv], app: APP)
      end
    end
  end
end
