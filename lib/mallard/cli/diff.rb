# frozen_string_literal: true

module Mallard
  class CLI
    # mallard diff RUN_A RUN_B [--metric NAME] [--fail-over PCT] [--json]
    class Diff < Command
      BANNER = <<~TEXT.freeze
        Usage: mallard diff [options] RUN_A RUN_B

        Before (A) and after (B): how a metric changed between two soaks, or between two comparisons
        (per configuration in both), as a % change with its 95% interval.
        Metrics: #{Analysis::RunDiff::METRICS.join(', ')}
        (default: steady memory — summed PSS when a run had several processes, else RSS).

        --fail-over PCT fails (exit 1) when the change is worse than PCT% with 95% confidence —
        its whole interval beyond PCT, up for memory and latency, down for req/s; a change
        without an interval never fails. Exit status: 0 done (or within --fail-over), 1 failed --fail-over,
        64 bad usage or runs of different kinds, 66 not a mallard run.
      TEXT

      def run(argv)
        paths = parse(argv)
        return 0 if help_printed?

        before, after = paths.map { |path| Run::Stored.open(path) }
        check_kinds(before, after)
        result = diff(before, after)
        render(result)
        finish(result)
      end

      private

      def parse(argv)
        operands = parser.parse(argv)
        return if @cli[:help]
        raise UsageError, "give two run directories, A (before) then B (after)" unless operands.size == 2
        if @cli[:metric] && !Analysis::RunDiff::METRICS.include?(@cli[:metric])
          raise UsageError, "unknown --metric #{@cli[:metric]}; one of #{Analysis::RunDiff::METRICS.join(', ')}"
        end

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

      def check_kinds(before, after)
        return if before.kind == after.kind

        raise UsageError, "diff: #{before.path} is a #{before.kind} run and #{after.path} a #{after.kind} run; " \
                          "diff two soaks or two comparisons"
      end

      # Through JSON, as summaries are, so the views read string keys and --json prints what they saw.
      def diff(before, after)
        metric = @cli[:metric] || Analysis::RunDiff.default_metric(before.kind, before.summary, after.summary)
        result = if before.kind == "compare"
                   Analysis::RunDiff.compares(before.summary, after.summary, metric: metric)
                 else
                   Analysis::RunDiff.soaks(soak_side(before, metric), soak_side(after, metric), metric: metric)
                 end
        result = result.merge(a: describe(before), b: describe(after))
        result[:fail_over] = Analysis::RunDiff.fail_over(result, @cli[:fail_over]) if @cli[:fail_over]
        JSON.parse(JSON.generate(result))
      end

      def soak_side(run, metric)
        key = Analysis::RunDiff::STEADY_KEYS[metric]
        return { summary: run.summary, steady: [] } unless key

        steady = Analysis::SteadySeries.call(summary: run.summary, samples: run.samples, phases: run.phases, key: key)
        { summary: run.summary, steady: steady }
      end

      def describe(run)
        { run_dir: Text.scrub(run.path), target: run.summary.dig("target", "description"),
          status: run.summary["status"], recomputed: run.recomputed? }
      end

      def render(result)
        return Report::Json.new(result).render(@out) if @cli[:json]

        Report::DiffTerminal.new(result, color: Report::Color.for(@out, env: @env)).render(@out)
      end

      # The reason goes to stderr as one line, so a CI log shows why the step failed even with --json.
      def finish(result)
        gate = result["fail_over"]
        return 0 unless gate && gate["failed"]

        @err.puts "mallard: diff: #{gate['reason']}"
        1
      end
    end
  end
end
