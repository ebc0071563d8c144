# frozen_string_literal: true

module Mallard
  class CLI
    # mallard demo: `compare` on the bundled example app, with settings that finish in three to five
    # minutes on two cores. Options given are passed on to compare and win over these.
    #
    # glibc's fragmentation of this app differs from run to run, and now and then one run of the three settles far
    # above the others (115, 113 and 186 MiB, seen): Welch's interval over three runs then spans hundreds of MiB, and
    # the demo recommended nothing where the next demo found glibc-arena2 at -40% (-43 ... -38). So while an
    # interval against glibc is wider than ±25 points, it adds interleaved rounds, within five minutes in all. Not
    # ±15: three rounds' CPU-per-request intervals here are ±9 to ±19 points, and at ±15 a demo took 4.7 minutes.
    # mallard demo --sidekiq: the same for the bundled job app, a 20-thread Sidekiq worker under its workload.
    class Demo
      APP = File.expand_path("../../../examples/demo", __dir__)
      CONFIGS = %w[glibc glibc-arena2 glibc-trim jemalloc jemalloc-tuned].freeze
      SETTINGS = ["--allocators", CONFIGS.join(","), "--repeat", "3", "--duration", "10", "--threads", "8",
                  "--concurrency", "16", "--until-resolved", "25", "--budget", "5m"].freeze

      JOBS_APP = File.expand_path("../../../examples/jobs", __dir__)
      JOBS_CONFIGS = %w[glibc glibc-arena2 jemalloc].freeze
      JOBS_SETTINGS = ["--sidekiq", "--workload", File.join(JOBS_APP, "workload.rb"), "--allocators",
                       JOBS_CONFIGS.join(","), "--repeat", "3", "--duration", "10"].freeze
      JOBS_WORKER = ["sidekiq", "-r", "./jobs.rb", "-c", "20"].freeze

      USAGE = <<~TEXT.freeze
        Usage: mallard demo [--sidekiq] [compare options]
        Runs `mallard compare` on the bundled example app (examples/demo), or with --sidekiq on the bundled job app
        (examples/jobs), with settings that finish in a few minutes on two cores:
          #{SETTINGS.join(' ')}
          --sidekiq: #{JOBS_SETTINGS.join(' ')}
        Any compare option given wins over these; compare's options follow.

      TEXT

      def initialize(out:, err:, env:)
        @out = out
        @compare = Compare.new(out: out, err: err, env: env)
      end

      def run(argv)
        @out.print(USAGE) if argv.include?("--help") || argv.include?("-h")
        return @compare.run([*SETTINGS, *argv], app: APP) unless argv.include?("--sidekiq")

        @compare.run([*JOBS_SETTINGS, *(argv - ["--sidekiq"]), JOBS_APP, "--", *JOBS_WORKER])
      end
    end
  end
end
