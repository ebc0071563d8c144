# frozen_string_literal: true

module Mallard
  class CLI
    # mallard diff RUN_A RUN_B [--metric NAME] [--fail-over PCT] [--json]
    class Diff < Command
      BANNER = <<~TEXT.freeze
        Usage: mallard diff [options] RUN_A RUN_B

        Before (A) and after (B): how a metric changed between two soaks, or between two comparisons
        (per configuration in both), or two boots (`mallard boot`: the total RSS after the boot, and each
        gem of 1 MiB or more), as a % change with its 95% interval. A boot is gated on its total.
        Metrics: #{Analysis::RunDiff::METRICS.join(', ')}
        (default: steady memory — summed PSS when a run had several processes, else RSS).

        --fail-over PCT fails (exit 1) when the change is worse than PCT% with 95% confidence —
        its whole interval beyond PCT, up for memory and latency, down for req/s; a change
        without an interval never fails. Exit status: 0 done (or within --fail-over), 1 failed --fail-over,
        64 bad usage or runs of different kinds, 65 a failed measurement or a newer run schema,
        66 not a mallard run.
      TEXT

      def run(argv)
        paths = parse(argv)
        return 0 if help_printed?

        before, after = paths.map { |path| Run::Reader.open(path) }
        check_kinds(before, after)
        sides = [before, after].map { |run| Side.new(run) }
        refuse_failed(sides)
        result = diff(*sides)
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

      # A run and its summary, as the diff sees it.
      Side = Struct.new(:run) do
        def compare? = run.is_a?(Run::CompareRun)
        def boot? = run.is_a?(Run::BootRun)

        def kind
          return "compare" if compare?

          boot? ? "boot" : "soak"
        end

        def summary
          @summary ||= case kind
                       when "compare" then Analysis::CompareSummary.for(run)
                       when "boot" then Analysis::BootSummary.call(run)
                       else Analysis::SoakSummary.for(run)
                       end
        end
      end

      def check_kinds(before, after)
        kinds = [before, after].map { |run| Side.new(run).kind }
        return if kinds.uniq.size == 1

        raise UsageError, "diff: #{before.path} is a #{kinds[0]} run and #{after.path} a #{kinds[1]} run; " \
                          "diff two soaks, two comparisons or two boots"
      end

      # A failed measurement has no figures to hold against anything: --fail-over must never pass on one.
      def refuse_failed(sides)
        failed = sides.find { |side| side.summary.status == "failed" }
        return unless failed

        raise FailedMeasurement, "diff: #{failed.run.path} is a failed measurement (#{failed.summary.reason}); " \
                                 "there is nothing to compare"
      end

      def diff(before, after)
        return finish_diff(Analysis::RunDiff.boots(before.summary, after.summary), before, after) if before.boot?

        metric = @cli[:metric] || Analysis::RunDiff.default_metric(before.kind, before.summary, after.summary)
        result = if before.compare?
                   Analysis::RunDiff.compares(before.summary, after.summary, metric: metric)
                 else
                   Analysis::RunDiff.soaks(soak_side(before, metric), soak_side(after, metric), metric: metric)
                 end
        finish_diff(result, before, after)
      end

      def finish_diff(result, before, after)
        result = result.merge(a: describe(before), b: describe(after))
        result[:fail_over] = Analysis::RunDiff.fail_over(result, @cli[:fail_over]) if @cli[:fail_over]
        Summary::Diff.from_h(result)
      end

      def soak_side(side, metric)
        key = Analysis::RunDiff::STEADY_KEYS[metric]
        return { summary: side.summary, steady: [] } unless key

        window = Analysis::SteadyWindow.call(side.run, warmup_samples: side.summary.verdict&.warmup_samples)
        { summary: side.summary, steady: window.values(key) }
      end

      def describe(side)
        { run_dir: Text.scrub(side.run.path), target: side.summary.target&.description, status: side.summary.status,
          recomputed: side.kind == "soak" && side.run.summary.nil? }
      end

      def render(result)
        show(result, Report::DiffTerminal)
      end

      # The reason goes to stderr as one line, so a CI log shows why the step failed even with --json.
      def finish(result)
        gate = result.fail_over
        return 0 unless gate&.failed

        @err.puts "mallard: diff: #{gate.reason}"
        1
      end
    end
  end
end
