# frozen_string_literal: true

module Mallard
  module Experiments
    # `mallard fleet`: asks Prometheus for each process's series of one metric over a window, for two selectors,
    # and keeps the answers raw in a run directory (meta.json, series.json), so the summary — and `mallard report`
    # later — work from what was fetched, never from a second query. Nothing is written when Prometheus cannot
    # answer, or a selector matches nothing.
    class Fleet
      # The memory ledger's parts (Analysis::LedgerParts) as --metric names.
      PARTS = { "ruby-live" => "ruby live objects", "ruby-free" => "ruby free slots",
                "ruby-transient" => "ruby transient heap", "malloc-used" => "malloc in use",
                "malloc-held" => "malloc held free", "file" => "file-backed", "stacks" => "stacks",
                "yjit" => "YJIT code", "unexplained" => "unexplained" }.freeze
      # --metric: the exporter's per-process families (lib/mallard/exporter/exposition.rb), all in bytes; a
      # ledger part is its family's series with that part's label.
      METRICS = { "pss" => "ruby_process_pss_bytes", "rss" => "ruby_process_rss_bytes",
                  "uss" => "ruby_process_uss_bytes", "malloc" => "ruby_malloc_in_use_bytes" }
                .merge(PARTS.transform_values { |part| %(ruby_memory_part_bytes{part="#{part}"}) }).freeze
      MATCHER = /\A\s*[a-zA-Z_][a-zA-Z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*\z/
      # Prometheus refuses a range query of more than 11,000 points per series.
      MAX_POINTS = 1_000

      # Where the series come from, as a run's meta.json names its target.
      Source = Struct.new(:url) do
        def kind = "prometheus"
        def describe = "Prometheus at #{url}"
      end

      # "{job="a",role="worker"}" or its inside: the matchers, checked one by one (before anything is asked), so a
      # typo is a usage error rather than a query that silently selects something else.
      # @return [String] the query
      # @raise [UsageError]
      def self.query(metric, selector)
        inside = selector.to_s.strip.delete_prefix("{").delete_suffix("}")
        matchers = inside.scan(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/)
        if matchers.empty? || !matchers.all? { |matcher| matcher.match?(MATCHER) }
          raise UsageError, "#{selector.inspect} is not a Prometheus label selector; give matchers such as " \
                            "'{job=\"app\",role=\"worker\"}'"
        end

        name, fixed = METRICS.fetch(metric).delete_suffix("}").split("{", 2)
        "#{name}{#{[fixed, *matchers.map(&:strip)].compact.join(',')}}"
      end

      # Points per series: one a step, the window cut into at most MAX_POINTS, never finer than a second.
      def self.step_for(since_s) = [(since_s.to_f / MAX_POINTS).ceil, 1].max.to_f

      # @param options [Hash] prometheus:, a:, b:, since_s:, step_s: (nil: step_for), metric:, out:, fail_over:
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
        directory = Run::Directory.create(command: "fleet", out: @options[:out])
        directory.write_json("meta.json", meta(window))
        directory.write_json("series.json", sides)
        run = Run::FleetReader.read(directory)
        directory.save_summary(Analysis::FleetSummary.call(run, fail_over: run.options["fail_over"]))
      end

      private

      def window
        step = @options[:step_s] || Fleet.step_for(@options[:since_s])
        { start: @now - @options[:since_s], end: @now, step_s: step }
      end

      def fetch(api, key, selector, window)
        query = Fleet.query(@options[:metric], selector)
        result = api.query_range(query, start: window[:start], finish: window[:end], step: window[:step_s])
        if result.empty?
          raise Unavailable, "--#{key} #{selector} matched no series at #{@shown} in the last " \
                             "#{@options[:since_s].round} s (query: #{query}); is the exporter scraped, and " \
                             "are the labels right?"
        end
        { "selector" => selector, "query" => query, "result" => result }
      end

      def meta(window)
        Run::Meta.build(command: "fleet", argv: @argv.map do |arg|
                                                  arg.sub(%r{//[^/@\s]*@}, "//")
                                                end, target: Source.new(@shown),
                        options: { prometheus: @shown, a: @options[:a], b: @options[:b],
                                   metric: @options[:metric], series: METRICS.fetch(@options[:metric]),
                                   since_s: @options[:since_s], step_s: window[:step_s],
                                   start: window[:start], end: window[:end], fail_over: @options[:fail_over] })
      end
    end
  end
end
