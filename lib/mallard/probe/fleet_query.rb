# frozen_string_literal: true

require_relative "../exporter/metric_names"
require_relative "../analysis/ledger_parts"

module Mallard
  module Probe
    # What `mallard fleet` asks Prometheus: one of the exporter's per-process series (Exporter::MetricNames) by its
    # --metric name, under a label selector checked matcher by matcher before anything is asked, at a step
    # Prometheus accepts.
    module FleetQuery
      LEDGER = Analysis::LedgerParts
      NAMES = Exporter::MetricNames
      private_constant :LEDGER, :NAMES
      # The memory ledger's parts as --metric names.
      PARTS = { "ruby-live" => LEDGER::LIVE, "ruby-free" => LEDGER::FREE_SLOTS, "ruby-transient" => LEDGER::TRANSIENT,
                "malloc-used" => LEDGER::MALLOC, "malloc-held" => LEDGER::HELD, "file" => LEDGER::FILE,
                "stacks" => LEDGER::STACKS, "yjit" => LEDGER::YJIT, "unexplained" => LEDGER::UNEXPLAINED }.freeze
      # --metric: the exporter's per-process families, all in bytes; a ledger part is its family's series with that
      # part's label.
      METRICS = { "pss" => NAMES.process_memory("pss"), "rss" => NAMES.process_memory("rss"),
                  "uss" => NAMES.process_memory("uss"), "malloc" => NAMES::MALLOC_IN_USE }
                .merge(PARTS.transform_values { |part| %(#{NAMES::MEMORY_PART}{#{NAMES::PART_LABEL}="#{part}"}) })
                .freeze
      # What production ran in, for fleet --expect: the exporter's condition families (Summary::Conditions' members).
      CONDITIONS = { "cpus" => NAMES::CPUS, "threads" => NAMES::POOL_THREADS, "ruby" => "#{NAMES::RUBY}_info",
                     "malloc" => "ruby_allocator_info", "mix" => "#{NAMES::HTTP_REQUESTS}_total",
                     "rate" => "#{NAMES::HTTP_REQUESTS}_total", "served" => "#{NAMES::HTTP_REQUESTS}_total" }.freeze
      # The request mix's rate over this range at each point: long enough for two scrapes a minute apart.
      MIX_RANGE = "5m"
      # A tree's requests a second over this range at each point: a minute, so that the busiest minute stands out.
      RATE_RANGE = "1m"
      MATCHER = /\A\s*[a-zA-Z_][a-zA-Z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*\z/
      # Prometheus refuses a range query of more than 11,000 points per series.
      MAX_POINTS = 1_000

      module_function

      # "{job="a",role="worker"}" or its inside: the matchers, checked one by one (before anything is asked), so a
      # typo is a usage error rather than a query that silently selects something else.
      # @param metric [String] a key of METRICS
      # @return [String] the query
      # @raise [UsageError]
      def call(metric, selector) = series(METRICS.fetch(metric), selector)

      # The condition families' queries under the selector, by Summary::Conditions' member. The request mix is each
      # method and path's rate of requests, summed over the processes; the rate and the requests served, each tree's
      # (a scrape target's: its master serves the tree's requests). And every exporter's tree, under no selector
      # ("trees"): a host's CPUs are shared by every tree on it, the selector's or not.
      # @return [Hash{String=>String}]
      def conditions(selector)
        selected = CONDITIONS.to_h do |name, family|
          query = series(family, selector)
          [name, SUMMED.key?(name) ? format(SUMMED[name], query) : query]
        end
        selected.merge("trees" => "group by (instance) (#{NAMES::CPUS})")
      end

      SUMMED = { "mix" => "sum by (method, path) (rate(%s[#{MIX_RANGE}]))",
                 "rate" => "sum by (instance) (rate(%s[#{RATE_RANGE}]))", "served" => "sum by (instance) (%s)" }.freeze
      private_constant :SUMMED

      def series(family, selector)
        inside = selector.to_s.strip.delete_prefix("{").delete_suffix("}")
        matchers = inside.scan(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/)
        if matchers.empty? || !matchers.all? { |matcher| matcher.match?(MATCHER) }
          raise UsageError, "#{selector.inspect} is not a Prometheus label selector; give matchers such as " \
                            "'{job=\"app\",role=\"worker\"}'"
        end

        name, fixed = family.delete_suffix("}").split("{", 2)
        "#{name}{#{[fixed, *matchers.map(&:strip)].compact.join(',')}}"
      end

      # Seconds between points: the window cut into at most MAX_POINTS, never finer than a second.
      def step_for(since_s) = [(since_s.to_f / MAX_POINTS).ceil, 1].max.to_f
    end
  end
end
