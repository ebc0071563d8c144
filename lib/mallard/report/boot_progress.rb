# frozen_string_literal: true

module Mallard
  module Report
    # Reports a boot run as its repeats finish, one line each on stderr; quiet for --json, whose output must
    # stay one JSON object.
    class BootProgress
      def initialize(io, quiet: false)
        @io = io
        @quiet = quiet
      end

      def begin_run(app:, run_dir:, repeats:, objects:, parallel:)
        say "booting #{app} #{repeats} times#{' and once with allocation tracing' if objects}, " \
            "#{parallel} at a time"
        say "run directory #{run_dir}"
      end

      def started(_job) = nil

      def finished_repeat(job)
        say(job == "objects" ? "objects pass done" : "repeat #{job} done")
      end

      def failed_repeat(job, how)
        say "#{job == 'objects' ? 'the objects pass' : "repeat #{job}"} #{how}"
      end

      private

      def say(text)
        @io.puts "mallard: #{Text.printable(text)}" unless @quiet
      end
    end
  end
end
