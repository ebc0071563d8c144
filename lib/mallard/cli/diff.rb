# frozen_string_literal: true

module Mallard
  class CLI
    # mallard diff RUN_A RUN_B [--metric NAME] [--fail-over PCT] [--json]
    class Diff < Command
      BANNER = <<~TEXT.freeze
        Usage: mallard diff [options] RUN_A RUN_B

        Before (A) and after (B): how a metric changed between two soaks (or gc runs), or between two
        comparisons (per configuration in both), or two boots (`mallard boot`: the total RSS after the
        boot, and each gem of 1 MiB or more), as a % change with its 95% interval. A boot is gated on its
        total. Metrics of soaks and comparisons: #{Analysis::RunDiff::METRICS.join(', ')}
        (default: steady memory — summed PSS when a run had several processes, else RSS); for a job
        worker rps is jobs/s, p99_ms the wait in the queue and cpu_ms_per_request the CPU per job.

        --fail-over PCT fails (exit 1) when the change is worse than PCT% with 95% confidence —
        its whole interval beyond PCT, up for memory and latency, down for req/s; a change
        without an interval never fails. Exit status: 0 done (or within --fail-over), 1 failed --fail-over,
        64 bad usage or runs of different kinds, 65 a failed measurement or a newer run schema,
        66 not a mallard run.
      TEXT

      def run(argv)
        paths = parse(argv)
        return 0 if help_printed?

        sides = paths.map { |path| RunKind.open(path) }
        kind = kind_of(*sides)
        refuse_failed(sides)
        result = diff(kind, *sides)
        show(result)
        finish(result)
      end

      private

      def parse(argv)
        operands = parser.parse(argv)
        return if @cli[:help]
        raise UsageError, "give two run directories, A (before) then B (after)" unless operands.size == 2

        operands
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "diff: #{e.message} (see `mallard diff --help`)"
      end

      def parser
        Parser.new do |opts|
          opts.banner = BANNER
          opts.on("--metric NAME", "the figure to compare (default: steady memory)") { |v| @cli[:metric] = v }
          opts.on("--fail-over PCT", Float, "exit 1 when significantly worse by more than PCT%") do |v|
            raise OptionParser::InvalidArgument, "#{v} (give a percentage, 0 or more)" if v.negative?

            @cli[:fail_over] = v
          end
          opts.on("--json", "print the diff as JSON") { @cli[:json] = true }
          opts.on("-h", "--help", "show this help") { @cli[:help] = opts.help }
        end
      end

      # Runs of one family (a gc run is a soak), which can be diffed, on a metric their kind has.
      def kind_of(before, after)
        kinds = [before, after].map(&:kind)
        unless kinds.map(&:diff_family).uniq.size == 1
          raise UsageError, "diff: #{before.run.path} is a #{kinds[0].name} run and #{after.run.path} a " \
                            "#{kinds[1].name} run; diff two runs of one kind"
        end
        check_metric(kinds.first)
        kinds.first
      end

      def check_metric(kind)
        metrics = kind.diff_metrics.keys
        raise UsageError, "diff: #{kind.name} runs have no figures mallard diff compares" if metrics.empty?
        return if @cli[:metric].nil? || metrics.include?(@cli[:metric])

        raise UsageError, "diff: unknown --metric #{@cli[:metric]} for #{kind.name} runs; one of #{metrics.join(', ')}"
      end

      # A failed measurement has no figures to hold against anything: --fail-over must never pass on one.
      def refuse_failed(sides)
        failed = sides.find { |side| side.summary.status == "failed" }
        return unless failed

        raise FailedMeasurement, "diff: #{failed.run.path} is a failed measurement (#{failed.summary.reason}); " \
                                 "there is nothing to compare"
      end

      def diff(kind, before, after)
        metric = @cli[:metric] || kind.default_diff_metric(before, after)
        result = kind.diff(before, after, metric: metric).merge(a: describe(before), b: describe(after))
        result[:fail_over] = Analysis::RunDiff.fail_over(result, @cli[:fail_over]) if @cli[:fail_over]
        Summary::Diff.from_h(result)
      end

      def describe(side)
        { run_dir: Text.scrub(side.run.path), target: side.summary.target&.description, status: side.summary.status,
          recomputed: side.recomputed? }
      end

      # The reason goes to stderr as one line, so a CI log shows why the step failed even with --json.
      def finish(result)
        gate = result.fail_over
        return 0 unless gate&.failed

        @err.puts "mallard: diff: #{Report::DiffSentences.new(result).fail_over}"
        1
      end
    end
  end
end
