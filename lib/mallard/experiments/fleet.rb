# frozen_string_literal: true

module Mallard
  module Experiments
    # `mallard fleet`: asks Prometheus for each process's series of one metric over a window, for two selectors
    # (Probe::FleetQuery), and keeps the answers raw in a run directory (meta.json, series.json), so the summary —
    # and `mallard report` later — work from what was fetched, never from a second query. Nothing is written when
    # Prometheus cannot answer, or a selector matches nothing.
    class Fleet
      # Where the series come from, as a run's meta.json names its target.
      Source = Struct.new(:url) do
        def kind = "prometheus"
        def describe = "Prometheus at #{url}"
      end

      # @param options [Hash] prometheus:, a:, b:, since_s:, step_s: (nil: FleetQuery's), metric:, out:, fail_over:,
      #   expect: (Summary::Prediction, nil without --expect)
      def initialize(options, argv:, now: Time.now)
        @options = options
        @argv = argv
        @now = now.to_f
      end

      # @return [Summary::Fleet] (also written to summary.json, or marked as not saved)
      def call
        window = window()
        api = Probe::PrometheusApi.new(@options[:prometheus])
        @shown = api.display
        sides = %w[a b].to_h { |key| [key, fetch(api, key, @options[key.to_sym], window)] }
        sides.merge!("parts" => parts(api, window), "conditions" => conditions(api, window)) if @options[:expect]
        directory = Run::Directory.create(command: "fleet", out: @options[:out])
        directory.write_json("meta.json", meta(window))
        directory.write_json("series.json", sides)
        run = Run::FleetReader.read(directory)
        directory.save_summary(Analysis::FleetSummary.call(run, fail_over: run.options["fail_over"]))
      end

      private

      def window
        step = @options[:step_s] || Probe::FleetQuery.step_for(@options[:since_s])
        { start: @now - @options[:since_s], end: @now, step_s: step }
      end

      def fetch(api, key, selector, window)
        query = Probe::FleetQuery.call(@options[:metric], selector)
        result = api.query_range(query, start: window[:start], finish: window[:end], step: window[:step_s])
        if result.empty?
          raise Unavailable, "--#{key} #{selector} matched no series at #{@shown} in the last " \
                             "#{@options[:since_s].round} s (query: #{query}); is the exporter scraped, and " \
                             "are the labels right?"
        end
        { "selector" => selector, "query" => query, "result" => result }
      end

      # --expect: each set's memory ledger parts too, so a disagreement can name the part. A part the exporter did not
      # serve (no agent readings yet, a Ruby without YJIT) is an empty answer, kept as one.
      def parts(api, window)
        Probe::FleetQuery::PARTS.to_h do |key, part|
          [part, %w[a b].to_h do |side|
            query = Probe::FleetQuery.call(key, @options[side.to_sym])
            [side, { "selector" => @options[side.to_sym], "query" => query,
                     "result" => api.query_range(query, start: window[:start], finish: window[:end],
                                                        step: window[:step_s]) }]
          end]
        end
      end

      # --expect: what B's processes run in, as their exporter serves it (their CPUs, Puma's pool, Ruby, malloc).
      def conditions(api, window)
        Probe::FleetQuery.conditions(@options[:b]).transform_values do |query|
          { "query" => query,
            "result" => api.query_range(query, start: window[:start], finish: window[:end], step: window[:step_s]) }
        end
      end

      def meta(window)
        Run::Meta.build(command: "fleet", argv: @argv.map do |arg|
                                                  arg.sub(%r{//[^/@\s]*@}, "//")
                                                end, target: Source.new(@shown),
                        options: { prometheus: @shown, a: @options[:a], b: @options[:b], metric: @options[:metric],
                                   series: Probe::FleetQuery::METRICS.fetch(@options[:metric]),
                                   since_s: @options[:since_s], step_s: window[:step_s],
                                   start: window[:start], end: window[:end], fail_over: @options[:fail_over],
                                   expect: @options[:expect]&.to_h })
      end
    end
  end
end
