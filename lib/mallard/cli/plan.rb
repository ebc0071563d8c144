# frozen_string_literal: true

module Mallard
  class CLI
    # mallard plan DIR --memory-limit SIZE --rate N [--threads T] [--repeat N]
    class Plan < MeasuringCommand
      BANNER = <<~TEXT.freeze
        Usage: mallard plan [options] DIR --memory-limit SIZE --rate N

        How many Puma workers of a Rack app fit a memory limit. The app is soaked --repeat times as
        #{Experiments::Plan::MEASURED_WORKERS} preloaded workers of --threads threads at --rate requests a second; the master's, the shared and
        each worker's memory (USS and summed PSS, read from /proc) predict the peak of N workers, and the
        largest N whose prediction with its margin fits under the limit is soaked in turn, offered the
        same load per worker, watched against the limit: the prediction against the peak measured.
        Exit status: 0 done, 64 bad usage (refused before anything starts), 65 a failed plan (not one
        worker fits, or the count chosen crossed the limit), 69 the app or the load failed, 130 interrupted.
      TEXT

      MAX_REPEAT = 20
      # Connections per Puma thread unless --concurrency says: each holds one request at a time, so they bound what the
      # open loop has in flight when answers slow (a tree of many workers on two CPUs), and spread the load's start
      # over the workers (at 1 a thread, before each request had its own connection, a 4x5 check of the demo app had
      # one worker serve nothing).
      CONNECTIONS_PER_THREAD = 4

      def run(argv)
        target = parse(argv)
        return 0 if help_printed?

        run_dir = Run::Directory.create(command: "plan", out: @cli[:out])
        @err.puts "mallard: run directory #{Text.printable(run_dir.path)}"
        summary = plan(target, run_dir, argv)
        show(summary)
        HtmlOutput.write_run(@cli[:html], @err, summary: summary, directory: run_dir)
        summary.outcome.exit_status
      end

      private

      def defaults
        { json: false, repeat: 2 }
      end

      def plan(target, run_dir, argv)
        Experiments::Plan.new(target: target, options: @measure.soak, threads: @measure.threads,
                              repeat: @cli[:repeat], run_dir: run_dir, reporter: reporter,
                              catalog: @measure.catalog, command_line: ["plan", *argv]).call
      rescue UsageError
        run_dir.discard # refused before anything was measured: no junk run directory
        raise
      end

      def parse(argv)
        operands, command = @measure.parse(parser, argv)
        return if @cli[:help]

        target = @measure.target(operands, command)
        check!(target)
        connections
        @measure.check_outputs!(@cli)
        target
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "plan: #{e.message} (see `mallard plan --help`)"
      end

      # A plan is of a Puma tree mallard shapes, against a limit, at one offered load: the measured shape and the
      # count checked are offered the same requests a second per worker, which a closed loop would not do (a larger
      # tree answers faster and is sent more).
      def check!(target)
        limit = @measure.soak.memory_limit
        raise UsageError, "plan applies to an app directory served by Puma, not a #{target.kind} target" \
          unless target.shapes?
        raise UsageError, "plan chooses the workers: drop --workers" if @measure.given?("--workers")
        # The check's workers share its requests: a count would end it before each had the load a measured one had.
        raise UsageError, "plan's runs load for --duration: drop --requests" if @measure.given?("--requests")
        raise UsageError, "plan needs --memory-limit SIZE (600M, 2G): the limit to fit" unless limit
        raise UsageError, "plan offers one load per worker: give --rate N (requests a second in all)" \
          unless @measure.soak.rate
        return if @cli[:repeat].between?(1, MAX_REPEAT)

        raise UsageError, "--repeat must be between 1 and #{MAX_REPEAT}, not #{@cli[:repeat]}"
      end

      # The measured shape's connections, scaled with the workers for the check (Experiments::Plan).
      def connections
        return if @measure.given?("--concurrency")

        @measure.soak.concurrency = Experiments::Plan::MEASURED_WORKERS * @measure.threads * CONNECTIONS_PER_THREAD
      end

      def parser
        Parser.new do |opts|
          opts.banner = BANNER
          @measure.define(opts)
          opts.on("--repeat N", Integer, "soaks of the measured shape (default 2)") { |v| @cli[:repeat] = v }
          @measure.define_output(opts, @cli, "plan")
        end
      end

      def reporter
        @cli[:json] ? Report::SilentProgress.new : Report::CompareProgress.new(@err)
      end
    end
  end
end
