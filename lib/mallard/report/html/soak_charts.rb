# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # The charts of one soak, drawn from its series (Summary::SoakSeries): memory, req/s, GC runs and the
      # live heap, on the run's own time axis with the warm-up shaded. A series that is nil was not measured:
      # its chart says so instead of drawing zeros.
      class SoakCharts
        TIME = SvgChart::Axis.new("Time since start", "s")
        NO_AGENT = "Not measured: no agent inside the subject."
        NO_MEMORY = "No memory samples were recorded."

        # @param series [Summary::SoakSeries, nil] nil for a run that recorded nothing
        # @param judged [Boolean] whether the run has a leak verdict (what its warm-up was left out of)
        # @param script [Boolean] a script serves no requests
        def initialize(series, judged:, script: false)
          @series = series || Summary::SoakSeries.new(processes: [])
          @judged = judged
          @script = script
        end

        def memory
          SvgChart.new(id: "memory", title: "Memory over time", x: TIME, y: SvgChart::Axis.new("Memory", "MiB"),
                       series: total_series + process_series, bands: bands, notes: memory_notes, absent: NO_MEMORY,
                       from_zero: false)
        end

        def requests
          absent = @script ? "Not measured: a script serves no requests." : NO_AGENT
          SvgChart.new(id: "rps", title: "Requests per second over time", x: TIME,
                       y: SvgChart::Axis.new("Throughput", "req/s"), bands: bands, absent: absent,
                       series: [series("throughput", @series.rps, 0)])
        end

        # A job worker's throughput and queue depth, on the memory chart's time axis.
        def jobs
          SvgChart.new(id: "jobs", title: "Jobs per second and queue depth over time", x: TIME,
                       y: SvgChart::Axis.new("Jobs", "jobs/s · jobs waiting"), bands: bands, absent: NO_AGENT,
                       x_max: x_max, series: [series("jobs finished per second", @series.rps, 0),
                                              series("jobs waiting in the queues", @series.enqueued, 1)],
                       notes: ["Jobs finished as the agent counted them inside the worker; the queues as Redis held " \
                               "them at each tick."])
        end

        def gc_runs
          notes = @series.bin_s ? ["Per #{@series.bin_s} s, summed over the app's processes."] : []
          SvgChart.new(id: "gc-runs", title: "GC runs over time", x: TIME, y: SvgChart::Axis.new("GC runs", "runs/s"),
                       bands: bands, notes: notes, absent: NO_AGENT, x_max: x_max,
                       series: [series("minor GC", @series.gc_minor_per_s, 0),
                                series("major GC", @series.gc_major_per_s, 1)])
        end

        def live_slots
          SvgChart.new(id: "live-slots", title: "Live heap slots and the live set over time", x: TIME,
                       y: SvgChart::Axis.new("Slots", "thousands"), bands: bands, absent: NO_AGENT, x_max: x_max,
                       from_zero: false,
                       series: [series("live slots", scaled(@series.live_slots, 1000.0), 2),
                                series("live set (judged)", scaled(@series.live_set, 1000.0), 3)],
                       notes: ["Summed over the app's processes. The live set is what the verdict judged: live slots " \
                               "after each major GC, or old objects without per-GC events. One that keeps rising " \
                               "points to Ruby objects being retained, a flat one with rising memory to the " \
                               "allocator or native code."])
        end

        # Each GC's pause with the agent's GC events, else GC time per second from GC.stat.
        def gc_time
          pauses = @series.gc_pause_ms
          drawn = pauses ? series("pause per GC", pauses, 1, dots: true) : series("GC time", @series.gc_ms_per_s, 1)
          SvgChart.new(id: "gc-time", title: pauses ? "GC pauses over time" : "GC time over time", x: TIME,
                       y: SvgChart::Axis.new(pauses ? "Pause" : "GC time", pauses ? "ms" : "ms/s"), bands: bands,
                       absent: NO_AGENT, x_max: x_max,
                       series: [drawn],
                       notes: pauses ? [] : ["No per-GC events in this run: GC time per #{@series.bin_s} s bin."])
        end

        private

        # Points without a value (a reading the run could not take) are left out, not drawn as zero.
        def series(name, points, style, dots: false)
          SvgChart::Series.new(name: name, points: Array(points).reject { |point| point.last.nil? }, style: style,
                               thin: false, dots: dots)
        end

        def scaled(points, divisor)
          points&.map { |t, value| [t, value && (value / divisor)] }
        end

        def processes = Array(@series.processes)

        def several? = processes.size > 1

        def total_series
          suffix = several? ? ", all #{processes.size} processes" : ""
          [series("RSS#{suffix}", scaled(@series.rss_kb, 1024.0), 0),
           series("PSS#{suffix}", scaled(@series.pss_kb, 1024.0), 1)]
        end

        # PSS per process: it adds up to the total (RSS would count shared pages once per worker).
        def process_series
          return [] unless several?

          processes.each_with_index.map do |process, i|
            series("PSS, pid #{process.pid} (#{process.role})", scaled(process.pss_kb, 1024.0), i + 2)
          end
        end

        def memory_notes
          notes = []
          notes << "Summed RSS counts pages shared by processes once per process; PSS counts them once." if several?
          if warmup
            notes << "Shaded: the warm-up, from the start of load until memory settled; the verdict leaves it out."
          elsif @judged
            notes << "No warm-up was detected: the whole load phase counts for the verdict."
          end
          notes
        end

        def warmup
          from, to = @series.warmup
          SvgChart::Band.new(from, to, format("warm-up (%g s)", (to - from).round(2))) if from && to
        end

        def bands = [warmup].compact

        # The memory chart's time axis, so GC and memory line up.
        def x_max = [@series.rss_kb, @series.pss_kb].compact.flat_map { |points| points.map(&:first) }.max
      end
    end
  end
end
