# frozen_string_literal: true

# Hand-built soak runs for the GC analysis: a server under load from t = 1 to t = 31 (or a script), sampler ticks
# every half second, agent records and, when given, per-GC events.
module GcRuns
  Run = Mallard::Run

  # @param live [Proc] live slots after the major GC at the given index
  # @param pause [Proc] its pause, ms
  def major_events(count, live:, pause: ->(_i) { 5.0 }, start: 1.5, every: 1.0, requests_per_s: 100)
    Array.new(count) do |i|
      t = start + (i * every)
      Run::GcEvent.new(t: t, pid: 1, pause_ms: pause.call(i), max_pause_ms: pause.call(i), major: 1,
                       major_by: i.even? ? "oldgen" : "nofree", gc_by: "newobj", heap_live_slots: live.call(i),
                       old_objects: live.call(i) - 1000, heap_allocated_pages: 100,
                       requests: (t * requests_per_s).round)
    end
  end

  def minor_events(count, pause: 0.5, start: 1.2, every: 0.25)
    Array.new(count) do |i|
      Run::GcEvent.new(t: start + (i * every), pid: 1, pause_ms: pause, max_pause_ms: pause, major: 0,
                       gc_by: i.even? ? "newobj" : "malloc", heap_live_slots: 50_000, old_objects: 30_000,
                       requests: 0)
    end
  end

  # GC.stat at each agent interval; old objects from old.call(i).
  def agent_records(count, old:, start: 1.0, every: 0.5, requests_per_s: 100, time_ms: ->(i) { 10 * i })
    Array.new(count) do |i|
      t = start + (i * every)
      gc = { "count" => 10 + (3 * i), "minor_gc_count" => 8 + (2 * i), "major_gc_count" => 2 + i,
             "heap_live_slots" => old.call(i) + 20_000, "old_objects" => old.call(i), "heap_allocated_pages" => 100,
             "time_ms" => time_ms.call(i) }
      Run::AgentRecord.new(t: t, pid: 1, gc: gc, requests: (t * requests_per_s).round)
    end
  end

  def ticks(count, start: 1.0, every: 0.5, rss: ->(_i) { 80_000 }, cpu_per_s: 0.5)
    Array.new(count) do |i|
      t = start + (i * every)
      Run::TotalSample.new(t: t, rss_kb: rss.call(i), pss_kb: rss.call(i), processes: 1, requests: (t * 100).round,
                           cpu_s: t * cpu_per_s)
    end
  end

  def gc_run(totals: ticks(61), agent: [], events: nil, script: false, gc_settings: nil, drops: nil)
    phases = Run::Phases.new(up_t: 0.5, load_started_t: 1.0, load_finished_t: 31.0, gc_settings: gc_settings,
                             outcome: Run::Outcome.complete)
    target = Run::TargetInfo.new(kind: script ? "script" : "rack", description: "test")
    Run::SoakRun.new(path: "/runs/test", meta: Run::Meta.new(command: "gc", phases: phases, target: target),
                     totals: totals, processes: [], agent: agent, gc_events: events, gc_drops: drops, load: nil,
                     summary: nil,
                     skipped: 0)
  end
end
