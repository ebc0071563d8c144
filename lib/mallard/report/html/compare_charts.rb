# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A comparison's charts, from its soaks' series: one line per configuration (its first repeat), further
      # repeats thin in the same style, runs not counted marked so. Runs boot at different speeds, so each is
      # drawn from the moment its load started.
      class CompareCharts
        include Formatting

        TIME = SvgChart::Axis.new("Time since load started", "s")

        # @param summary [Summary::Compare]
        # @param soaks [Hash{String=>Array<Summary::Soak>}] per configuration, in the order it ran them
        def initialize(summary, soaks)
          @summary = summary
          @soaks = soaks
          @key = summary.metric == "steady_pss_kb" ? :pss_kb : :rss_kb
        end

        def memory
          name = @key == :pss_kb ? "PSS, summed over processes" : "RSS"
          SvgChart.new(id: "compare-memory", title: "#{name} over time, per configuration", x: TIME,
                       y: SvgChart::Axis.new(name, "MiB"), notes: notes,
                       series: per_run { |series| series[@key]&.map { |t, kb| [t, kb && (kb / 1024.0)] } },
                       absent: "No memory samples were recorded.", from_zero: false)
        end

        def requests
          labels = work_labels(@summary.target)
          SvgChart.new(id: "compare-rps", title: "#{labels[:per_second]} over time, per configuration", x: TIME,
                       y: SvgChart::Axis.new("Throughput", labels[:rate]), series: per_run(&:rps),
                       absent: SoakCharts::NO_AGENT)
        end

        private

        # A series per run that has the points; none for a run whose series is nil (not measured).
        def per_run
          names.each_with_index.flat_map do |name, style|
            Array(@soaks[name]).each_with_index.filter_map do |soak, i|
              series = soak.series
              points = series && yield(series)
              next unless points

              SvgChart::Series.new(name: label(name, soak, i), points: since(points, series.load_started_t),
                                   style: style, thin: i.positive?)
            end
          end
        end

        # The table's order, then any configuration only the soaks name.
        def names = Array(@summary.configs).map(&:name) | @soaks.keys

        def label(name, soak, index)
          text = index.zero? ? name : "#{name} ##{index + 1}"
          soak.valid? ? text : "#{text} (not counted)"
        end

        # Points on a clock that starts when load started, dropping those before it and those without a value.
        def since(points, origin)
          origin ||= 0
          points.filter_map { |t, value| [(t - origin).round(3), value] if t >= origin && !value.nil? }
        end

        def notes
          notes = ["Each run's warm-up is its own (see its summary.json) and is not shaded here."]
          missing = missing_runs
          if missing.positive?
            notes << "#{missing} run #{missing == 1 ? 'directory was' : 'directories were'} not found."
          end
          notes
        end

        # Runs the comparison recorded that came without a soak summary (a comparison copied without them).
        def missing_runs
          Array(@summary.rows).sum do |row|
            recorded = Array(row.runs).size + Array(row.invalid_runs).size
            [recorded - Array(@soaks[row.name]).size, 0].max
          end
        end
      end
    end
  end
end
