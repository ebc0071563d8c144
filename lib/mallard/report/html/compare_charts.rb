# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A comparison's charts: one line per configuration (its first repeat), further repeats thin in
      # the same style. Runs boot at different speeds, so each is drawn from the moment its load started.
      class CompareCharts
        TIME = SvgChart::Axis.new("Time since load started", "s")

        def initialize(runs, metric:)
          @runs = runs
          @key = metric == "steady_pss_kb" ? "pss_kb" : "rss_kb"
        end

        def memory
          name = @key == "pss_kb" ? "PSS, summed over processes" : "RSS"
          SvgChart.new(id: "compare-memory", title: "#{name} over time, per configuration", x: TIME,
                       y: SvgChart::Axis.new(name, "MB"),
                       series: per_run { |run| Timeline.memory_mb(run.totals, @key) },
                       notes: notes)
        end

        def requests
          SvgChart.new(id: "compare-rps", title: "Requests per second over time, per configuration", x: TIME,
                       y: SvgChart::Axis.new("Throughput", "req/s"),
                       series: per_run { |run| Timeline.requests_per_second(run.totals) })
        end

        private

        def per_run
          @runs.configs.flat_map do |config|
            config.runs.each_with_index.map do |run, i|
              SvgChart::Series.new(name: i.zero? ? config.name : "#{config.name} ##{i + 1}",
                                   points: Timeline.since(yield(run), run.load_started_t),
                                   style: config.style, thin: i.positive?)
            end
          end
        end

        def notes
          notes = ["Each run's warm-up is its own (see its summary.json) and is not shaded here."]
          missing = @runs.missing
          if missing.positive?
            notes << "#{missing} run #{missing == 1 ? 'directory was' : 'directories were'} not found."
          end
          notes
        end
      end
    end
  end
end
