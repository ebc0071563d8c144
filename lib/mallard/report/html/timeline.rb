# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # Points [t, value] for the charts, from a run's raw records. t is seconds since the run started,
      # the clock the sampler and the agent share (MALLARD_T0).
      module Timeline
        module_function

        def totals(samples)
          samples.select { |s| s["kind"] == "total" }.sort_by { |s| s["t"] }
        end

        # pid => its memory samples, in the order the processes appeared.
        def processes(samples)
          samples.select { |s| s["kind"] == "memory" }.sort_by { |s| s["t"] }.group_by { |s| s["pid"] }
        end

        def memory_mb(records, key)
          records.filter_map { |s| [s["t"], s[key] / 1024.0] if s[key] }
        end

        # Points on a clock that starts at `origin` (when load started), dropping those before it.
        def since(points, origin)
          points.filter_map { |t, value| [(t - origin).round(3), value] if t >= origin }
        end

        # The sampler records requests served so far; the rate is the difference over each interval.
        def requests_per_second(totals)
          totals.each_cons(2).filter_map do |before, after|
            next unless before["requests"] && after["requests"] && after["t"] > before["t"]

            [after["t"], (after["requests"] - before["requests"]) / (after["t"] - before["t"])]
          end
        end

        # GC runs per second in bins of `width` seconds, summed over the processes: each agent record
        # contributes the runs since that process's previous record.
        def gc_runs_per_second(agent, key, width)
          previous = {}
          bins(agent, width).map do |bin, records|
            runs = records.sum do |record|
              value = record.dig("gc", key).to_i
              (value - previous.fetch(record["pid"], value)).tap { previous[record["pid"]] = value }
            end
            [((bin + 1) * width).round(3), runs / width]
          end
        end

        # Live heap slots (thousands) at the end of each bin, summed over the processes seen so far.
        def live_slots_thousands(agent, width)
          latest = {}
          bins(agent, width).map do |bin, records|
            records.each { |record| latest[record["pid"]] = record.dig("gc", "heap_live_slots").to_i }
            [((bin + 1) * width).round(3), latest.values.sum / 1000.0]
          end
        end

        def bins(agent, width)
          agent.select { |r| r["gc"] && r["t"] }.sort_by { |r| r["t"] }
               .chunk_while { |a, b| (a["t"] / width).floor == (b["t"] / width).floor }
               .map { |records| [(records.first["t"] / width).floor, records] }
        end
      end
    end
  end
end
