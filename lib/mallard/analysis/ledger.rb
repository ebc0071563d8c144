# frozen_string_literal: true

require_relative "ledger_mappings"
require_relative "ledger_parts"
require_relative "leak_verdict"
require_relative "request_axis"
require_relative "significance"
require_relative "statistics"

module Mallard
  module Analysis
    # The memory ledger over a run: each part of RSS (LedgerParts), summed over the processes (each one's latest
    # reading, at each reading of any), judged for growth against the work done by LeakVerdict's rule, over the
    # span the memory verdict judges (a server's steady window; a script's whole run).
    #
    # Growth is judged per part because the parts answer different questions: what the app holds (Ruby's live
    # objects, malloc in use) growing is retention, a cache or a leak; what the allocator holds free growing
    # under a flat app-held line is fragmentation or settling, and its size is what another allocator can win
    # at most (headroom_kb), so the remedy is `mallard compare`, not a leak hunt.
    #
    # What the app holds is decided here as data (Summary::Ledger#finding, with its slope); the sentence is
    # Report::LedgerSentences'.
    module Ledger
      # app_needed: the run length (work after warm-up) that would decide app-held memory, when it is undecided.
      Result = Struct.new(:ledger, :app_held, :allocator_held, :headroom_kb, :app_needed, keyword_init: true)
      Point = Struct.new(:t, :requests, :parts, :pss, keyword_init: true)
      PER_REQUESTS = 1000

      module_function

      # @param run [Run::SoakRun]
      # @param from_t [Float, nil] the start of the span judged; nil: from the start of the load
      # @param live_set [String, nil] the live set's verdict (LiveSet)
      # @return [Result, nil] nil when the run has no ledger readings in the span
      def call(run, from_t: nil, live_set: nil)
        records = LedgerMappings.call(span(run, from_t), run.processes || [])
        return if records.empty?

        points = summed(records)
        work = axis(run, points)
        app = judge_levels(app_totals(records), work)
        allocator = judge(points, LedgerParts::ALLOCATOR_HELD, work)
        flat = app&.state == "growing" && flat_objects?(points, work, live_set)
        app = unconfirmed(app) if flat
        judged = { finding: finding(app, flat), app_slope: app&.slope }
        Result.new(ledger: ledger(run, records, points, work, judged),
                   app_held: app&.state, allocator_held: allocator&.state,
                   headroom_kb: sum_of(points.last.parts, LedgerParts::ALLOCATOR_HELD), app_needed: app&.needed)
      end

      # What the app holds, in a word (Summary::Ledger#finding); nil when it could not be read.
      def finding(app, unconfirmed)
        return unless app
        return "app_unconfirmed" if unconfirmed

        { "growing" => "app_grows", "plateaued" => "app_flat" }.fetch(app.state, "app_undecided")
      end

      # What the app holds is judged on the allocator's own count of it, not on the malloc-in-use part: where the
      # allocator counts more than RSS has room for (glibc's arena pages never touched), that part is capped at what
      # RSS leaves, and then follows RSS. A batch script that keeps nothing, whose RSS rose 1.2 MB in 17 s while
      # glibc's count swung by ±150 KB, had its app-held memory called undecided so.
      #
      # malloc in use counts the buffers of objects no GC has collected yet (a Rails app's grew 1.8 MB in 60 s
      # while its live objects were flat and it leaked nothing), so under flat Ruby objects its growth is not
      # called retention: it may be that, native memory (a C extension), or garbage awaiting a major GC.
      def unconfirmed(app)
        app.dup.tap do |judged|
          judged.state = "inconclusive"
          judged.methodology = "#{judged.methodology}; growth not confirmed by the live set, which is flat"
        end
      end

      # The Ruby objects are flat when the live set says so, or, with the live set undecided, when the bytes in
      # live slots the ledger read are.
      def flat_objects?(points, work, live_set)
        return false if live_set == "growing"

        live_set == "plateaued" || judge(points, [LedgerParts::LIVE], work)&.state == "plateaued"
      end

      def span(run, from_t)
        return run.ledger if run.script?

        window = run.phases.load_window
        start = [from_t || window.begin, window.begin].max
        run.ledger.select { |record| record.t >= start && record.t <= window.end }
      end

      def summed(records)
        latest = {}
        latest_pss = {}
        requests = {}
        records.map do |record|
          latest[record.pid] = LedgerParts.call(record)
          latest_pss[record.pid] = LedgerParts.pss(record) || latest_pss[record.pid] # PSS only as last read
          requests[record.pid] = record.requests.to_i
          Point.new(t: record.t, requests: requests.values.sum, parts: summed_parts(latest.values),
                    pss: (summed_parts(latest_pss.values) unless latest_pss.values.any?(&:nil?)))
        end
      end

      # What the app holds by the allocator's own count (live objects + malloc in use, uncapped), summed over the
      # processes at each reading as the parts are; nil where a process's was not read.
      def app_totals(records)
        latest = {}
        records.map do |record|
          live = record.ruby_live_kb
          malloc = record.malloc_in_use_kb
          latest[record.pid] = (live + malloc if live && malloc)
          latest.values.sum unless latest.values.any?(&:nil?)
        end
      end

      # Each part summed over the processes' readings (RoleLedger sums a role's so too).
      def summed_parts(readings) = LedgerParts::NAMES.to_h { |name| [name, sum_of_processes(readings, name)] }

      # A part unread in any process is unread in the sum.
      def sum_of_processes(readings, name)
        values = readings.map { |parts| parts[name] }
        values.sum unless values.any?(&:nil?)
      end

      def sum_of(parts, names)
        values = parts.values_at(*names)
        values.sum unless values.any?(&:nil?)
      end

      # Requests for a server (per 1,000), seconds for a script (per 1): [xs, per].
      def axis(run, points)
        return [points.map(&:t), 1] if run.script?

        [RequestAxis.call(points, load: run.load, phases: run.phases, idle: run.idle?).first, PER_REQUESTS]
      end

      def judge(points, names, work) = judge_levels(points.map { |point| sum_of(point.parts, names) }, work)

      def judge_levels(levels, work)
        return if levels.any?(&:nil?)

        LeakVerdict.judge(work: work[0], levels: levels, min_tolerance: Significance::MEMORY_FLOOR_KB, per: work[1])
      end

      def ledger(run, records, points, work, judged)
        last = records.last
        Summary::Ledger.new(readings: records.size, interval_s: interval(records), allocator: last.allocator,
                            not_read: LedgerParts.not_read(last), explained_pct: explained_pct(points.last.parts),
                            pss_kb: points.last.pss&.values&.compact&.sum,
                            cost_ms: Statistics.median(records.filter_map(&:cost_ms))&.round(3),
                            unit: run.script? ? "KiB per second" : "KiB per 1,000 #{run.unit}", **judged,
                            names: LedgerParts::NAMES, series: series(points), parts: parts(points, work),
                            processes: processes(records))
      end

      # The share of RSS the named parts account for (a role's too, RoleLedger).
      def explained_pct(parts)
        rss = parts.values.compact.sum
        rss.positive? ? (100.0 * (rss - parts[LedgerParts::UNEXPLAINED]) / rss).round(1) : nil
      end

      def parts(points, work)
        LedgerParts::NAMES.filter_map do |name|
          next if points.all? { |point| point.parts[name].nil? }

          judged = judge(points, [name], work)
          Summary::LedgerPart.new(name: name, kb: points.last.parts[name], pss_kb: points.last.pss&.dig(name),
                                  slope: judged&.slope&.round(1), ci: judged&.ci&.map { |bound| bound.round(1) },
                                  verdict: judged&.state)
        end
      end

      def series(points)
        points.map { |point| [point.t.round(3), *point.parts.values_at(*LedgerParts::NAMES)] }
      end

      def processes(records)
        records.group_by(&:pid).map do |pid, readings|
          read = readings.reverse.find(&:pss_kb)
          Summary::LedgerProcess.new(pid: pid, rss_kb: readings.last.rss_kb, parts: LedgerParts.call(readings.last),
                                     first_parts: LedgerParts.call(readings.first), pss_kb: read&.pss_kb,
                                     pss_parts: read && LedgerParts.pss(read), pss_t: read&.mappings_t)
        end
      end

      def interval(records)
        gaps = records.group_by(&:pid).values.flat_map { |readings| readings.each_cons(2).map { |a, b| b.t - a.t } }
        Statistics.median(gaps)&.round(2)
      end

      private_class_method :finding, :unconfirmed, :flat_objects?, :span, :summed, :app_totals, :sum_of_processes,
                           :sum_of, :axis, :judge, :judge_levels, :ledger, :parts, :series, :processes, :interval
    end
  end
end
