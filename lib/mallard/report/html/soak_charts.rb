# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The charts of one soak: memory, req/s, GC runs and the live heap, on the run's own time axis
      # with the warm-up shaded.
      class SoakCharts
        TIME = SvgChart::Axis.new("Time since start", "s")

        def initialize(run)
          @run = run
        end

        def memory
          SvgChart.new(id: "memory", title: "Memory over time", x: TIME, y: SvgChart::Axis.new("Memory", "MB"),
                       series: total_series + process_series, bands: bands, notes: memory_notes)
        end

        def requests
          SvgChart.new(id: "rps", title: "Requests per second over time", x: TIME,
                       y: SvgChart::Axis.new("Throughput", "req/s"), bands: bands,
                       series: [series("throughput", Timeline.requests_per_second(@run.totals), 0)])
        end

        def gc_runs
          rate = ->(key) { Timeline.gc_runs_per_second(@run.agent, key, bin_width) }
          SvgChart.new(id: "gc-runs", title: "GC runs over time", x: TIME, y: SvgChart::Axis.new("GC runs", "runs/s"),
                       bands: bands, notes: ["Per #{bin_width} s, summed over the app's processes."],
                       series: [series("minor GC", rate.call("minor_gc_count"), 0),
                                series("major GC", rate.call("major_gc_count"), 1)])
        end

        def live_slots
          SvgChart.new(id: "live-slots", title: "Live heap slots over time", x: TIME,
                       y: SvgChart::Axis.new("Live slots", "thousands"), bands: bands,
                       series: [series("heap_live_slots", Timeline.live_slots_thousands(@run.agent, bin_width), 2)],
                       notes: ["Summed over the app's processes; a live set that keeps rising points to Ruby objects " \
                               "being retained, a flat one with rising memory to the allocator or native code."])
        end

        private

        def series(name, points, style, thin: false)
          SvgChart::Series.new(name: name, points: points, style: style, thin: thin)
        end

        def several? = @run.processes.size > 1

        def total_series
          suffix = several? ? ", all #{@run.processes.size} processes" : ""
          [series("RSS#{suffix}", Timeline.memory_mb(@run.totals, "rss_kb"), 0),
           series("PSS#{suffix}", Timeline.memory_mb(@run.totals, "pss_kb"), 1)]
        end

        # PSS per process: it adds up to the total (RSS would count shared pages once per worker).
        def process_series
          return [] unless several?

          @run.processes.each_with_index.map do |(pid, records), i|
            series("PSS, pid #{pid} (#{records.first['role']})", Timeline.memory_mb(records, "pss_kb"), i + 2)
          end
        end

        def memory_notes
          notes = []
          notes << "Summed RSS counts pages shared by processes once per process; PSS counts them once." if several?
          if @run.warmup
            notes << "Shaded: the warm-up, from the start of load until memory settled; the verdict leaves it out."
          elsif @run.summary
            notes << "No warm-up was detected: the whole load phase counts for the verdict."
          end
          notes
        end

        def bands = [@run.warmup].compact

        # Agent records come every sampling interval per process; bins of two intervals smooth out their jitter.
        def bin_width = (@run.interval.to_f * 2).round(3)
      end
    end
  end
end
