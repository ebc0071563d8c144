# frozen_string_literal: true

module Mallard
  class CLI
    # mallard fleet --prometheus URL --a SELECTOR --b SELECTOR [--since 1h] [--metric pss] [--fail-over PCT]
    class Fleet < Command
      BANNER = <<~TEXT.freeze
        Usage: mallard fleet --prometheus URL --a SELECTOR --b SELECTOR [options]

        Two sets of production processes compared from Prometheus, as scraped from mallard's exporter
        (require "mallard/exporter"): each process (its instance and pid) is one unit, its time-weighted
        median over the window; B against A as a % change with a 95% interval — the Hodges–Lehmann
        shift with the Mann–Whitney interval, called a difference only beyond ±#{format('%g', Analysis::Significance::NOISE_PCT)}%.
        Selectors are Prometheus label matchers: '{job="app",pod=~"web-a.*",role="worker"}'.
        Metrics: #{(Probe::FleetQuery::METRICS.keys - Probe::FleetQuery::PARTS.keys).join(', ')} (default pss), or a part of
        the memory ledger (which part of RSS differs): #{Probe::FleetQuery::PARTS.keys.join(', ')}.

        The fetched series and the summary are kept in a run directory (`mallard report DIR`).
        Exit status: 0 done (or within --fail-over), 1 failed --fail-over (B higher than A by more
        than PCT with 95% confidence; no interval never fails), 64 bad usage or a selector Prometheus
        refuses, 69 Prometheus unreachable or a selector that matches nothing.
      TEXT

      def run(argv)
        parse(argv)
        return 0 if help_printed?

        summary = Experiments::Fleet.new(@cli, argv: argv).call
        show(summary)
        finish(summary)
      end

      private

      def defaults
        super.merge(since_s: 3600.0, metric: "pss")
      end

      def parse(argv)
        operands = parser.parse(argv)
        return if @cli[:help]
        raise UsageError, "unexpected #{operands.first.inspect}" if operands.any?

        check_required
        %i[a b].each { |side| Probe::FleetQuery.call(@cli[:metric], @cli[side]) }
        Probe::PrometheusApi.new(@cli[:prometheus])
        @cli[:expect] = prediction(@cli[:expect]) if @cli[:expect]
      rescue OptionParser::ParseError, UsageError => e
        raise UsageError, "fleet: #{e.message} (see `mallard fleet --help`)"
      end

      # --expect RUN or RUN:CONFIG: the comparison's prediction for the configuration B runs (its recommendation's
      # when none is named), read now, so a run that cannot be read or a row it lacks stops before Prometheus is asked.
      def prediction(text)
        run, config = File.directory?(text) ? [text, nil] : text.split(/:(?=[^:]*\z)/, 2)
        opened = RunKind.open(run)
        raise UsageError, "--expect #{text}: #{run} is a #{opened.kind.name} run, not a comparison" unless
          opened.kind.name == "compare"

        Analysis::Prediction.call(opened.summary, config: config, run: run, meta: opened.run.meta)
      rescue NotFound => e
        raise UsageError, "--expect #{text}: #{e.message}"
      end

      def check_required
        missing = { prometheus: "--prometheus URL", a: "--a SELECTOR", b: "--b SELECTOR" }.reject { |key, _| @cli[key] }
        raise UsageError, "give #{missing.values.join(', ')}" if missing.any?
        return if Probe::FleetQuery::METRICS.key?(@cli[:metric])

        raise UsageError, "unknown --metric #{@cli[:metric]}; one of #{Probe::FleetQuery::METRICS.keys.join(', ')}"
      end

      def parser
        Parser.new do |opts|
          opts.banner = BANNER
          opts.on("--prometheus URL", "Prometheus's base URL") { |v| @cli[:prometheus] = v }
          opts.on("--a SELECTOR", "the baseline set of processes") { |v| @cli[:a] = v }
          opts.on("--b SELECTOR", "the set compared with it") { |v| @cli[:b] = v }
          opts.on("--since DURATION", "the window, up to now: 90s, 15m, 1h, 1h30m (default 1h)") do |v|
            @cli[:since_s] = duration(v)
          end
          opts.on("--step DURATION", "between the query's points (default: window / 1000, at least 1s)") do |v|
            @cli[:step_s] = duration(v)
          end
          opts.on("--metric NAME", "one of the metrics above (default pss)") { |v| @cli[:metric] = v }
          opts.on("--out DIR", "the run directory (default: a new one under .mallard/runs)") { |v| @cli[:out] = v }
          opts.on("--expect RUN[:CONFIG]", "a compare run: does B show the change it predicted for CONFIG (default: " \
                                           "its recommendation) against A?") { |v| @cli[:expect] = v }
          define_gate_and_view(opts)
        end
      end

      def define_gate_and_view(opts)
        opts.on("--fail-over PCT", Float, "exit 1 when B is significantly higher than A by more than PCT%") do |v|
          raise OptionParser::InvalidArgument, "#{v} (give a percentage, 0 or more)" if v.negative?

          @cli[:fail_over] = v
        end
        opts.on("--json", "print the summary as JSON") { @cli[:json] = true }
        opts.on("-h", "--help", "show this help") { @cli[:help] = opts.help }
      end

      # The reason goes to stderr as one line, so a CI log shows why the step failed even with --json.
      def finish(summary)
        @err.puts "mallard: fleet: no verdict: too few processes to decide" if summary.change&.ci.nil?
        return 0 unless summary.fail_over&.failed

        @err.puts "mallard: fleet: #{Report::FleetSentences.new(summary).fail_over}"
        1
      end
    end
  end
end
