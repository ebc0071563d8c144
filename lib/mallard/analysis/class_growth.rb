# frozen_string_literal: true

require_relative "statistics"
require_relative "gc_timeline"
require_relative "least_squares"

module Mallard
  module Analysis
    # Which job class memory grows with: the KiB each job of a class leaves behind, with a 95% interval, from the
    # memory ledger's readings of each process and the agent's tally of the jobs each process finished between them.
    # Pure.
    #
    # Why a regression and not a per-job reading: a worker runs its classes interleaved, on the same threads, and
    # memory is one number for the whole process, so no reading taken around one job is that job's. What is that
    # class's is how a process's memory moved over an interval against how many jobs of each class it ran in it: a
    # least-squares fit, over every interval of every process (each process's growth against its own jobs), of
    #
    #   growth = a × seconds + Σ b_class × jobs_class
    #
    # b_class is the class's KiB per job. The seconds term takes what grows with time and with no job (a backend's own
    # queues and caches): left out, that growth would be blamed on whichever class runs most. The price is that the
    # classes are told apart only where their counts, and the pace, vary between intervals: a class whose count
    # moves with another's or with the clock (always enqueued together, a saturated worker at one mix) has a variance
    # inflation factor above MAX_VIF and is "too thin", never a guess between them.
    #
    # The memory is the process's anonymous RSS as its agent read it (RSS less its file-backed part): what the process
    # holds, which a kept object grows and so does the fragmentation a class leaves. Not malloc in use plus live
    # slots, which count garbage until the next GC: in a Sidekiq worker running nine GCs a second, readings a second
    # apart moved by ±1.1 MiB of it against anonymous RSS's ±0.23 MiB (glibc reuses what a GC frees), and every
    # class's interval was 4 to 5 times as wide (test/integration/sidekiq_test.rb's mix: ±7,000 KiB per 1,000 jobs
    # against ±1,500). Not the file-backed part, which grows when a class first loads code. Not PSS, which moves when
    # a sibling forks or exits.
    module ClassGrowth
      # Growth below this, 0.5 KiB kept per job, is not material: "growing" needs the whole interval above it, "not
      # growing" the whole interval below it.
      MATERIAL_KB_PER_1K = 500
      # A class with fewer jobs than this in the span is not fitted.
      MIN_JOBS = 100
      # Intervals needed beyond the terms fitted, for the residuals to say how wide the interval is.
      SPARE_INTERVALS = 3
      # Above this variance inflation factor (90% of a class's count explained by the other terms) a class's figure is
      # mostly another's: too thin.
      MAX_VIF = 10.0
      # The ledger's reading is taken just after the agent's record of the same interval (Agent::Recorder#flush).
      JOIN_SLACK_S = 0.05
      # How far from the others, in robust standard deviations, an interval's residual is an outlier (#trimmed).
      OUTLIER = 3.0

      # One interval of one process: its length, its jobs per class, and its memory's growth in KiB.
      Interval = Struct.new(:seconds, :counts, :growth_kb)

      module_function

      # @param run [Run::SoakRun]
      # @param from_t [Float, nil] readings before this are not used (a warm-up)
      # @return [Hash{String => Hash}] per class: growth_kb_per_1k_jobs, its _ci, judgement ("growing", "not_growing",
      #   "too_thin") and why ("few_jobs", "few_intervals", "collinear", "wide"; nil when decided); a class not in
      #   the span is too thin for few jobs
      def call(run, from_t: nil)
        intervals = intervals(run, from_t)
        jobs = Hash.new(0)
        intervals.each { |interval| interval.counts.each { |name, count| jobs[name] += count } }
        fitted = jobs.keys.select { |name| jobs[name] >= MIN_JOBS }.sort
        fit(intervals, fitted).tap { |judged| judged.default = thin("few_jobs") }
      end

      # A record's tally: name => [jobs, failed].
      # @return [Hash{String => Array(Integer, Integer)}]
      def tally(record)
        Array(record.job_classes).to_h { |name, jobs, failed| [name.to_s, [jobs.to_i, failed.to_i]] }
      end

      # Consecutive ledger readings of each process, each joined to the process's tally. An interval in which the
      # process ran a major GC is left out: that GC freed the old garbage of many intervals before it (a worker's
      # drops of 5 MiB at one reading, in a run whose jobs kept 2 MiB a second), growth that is no job's of its own.
      # @return [Array<Interval>]
      def intervals(run, from_t)
        records = run.agent.select(&:job_classes).group_by(&:pid)
        majors = Array(run.gc_events).select { |event| GcTimeline.major?(event) }.group_by(&:pid)
        readings(run, from_t).flat_map do |pid, own|
          points = own.filter_map { |reading| (record = at(records[pid], reading.t)) && [reading, tally(record)] }
          own_intervals(points, majors.fetch(pid, []))
        end
      end

      # Each process's ledger readings with the memory measured, from from_t on.
      def readings(run, from_t)
        run.ledger.select { |reading| memory_kb(reading) && reading.t >= from_t.to_f }.group_by(&:pid)
      end

      def own_intervals(points, majors)
        points.each_cons(2).filter_map do |(from, before), (to, after)|
          interval(from, before, to, after) unless majors.any? { |gc| gc.t > from.t && gc.t <= to.t }
        end
      end

      def interval(from, before, to, after)
        counts = after.to_h { |name, (jobs, _)| [name, jobs - before.fetch(name, [0]).first] }
        Interval.new(to.t - from.t, counts, memory_kb(to) - memory_kb(from))
      end

      def memory_kb(reading)
        reading.rss_kb && reading.file_kb && (reading.rss_kb - reading.file_kb)
      end

      # The process's latest record by the reading's time; nil before its first.
      def at(records, time)
        return unless records

        after = records.bsearch_index { |record| record.t > time + JOIN_SLACK_S } || records.size
        records[after - 1] if after.positive?
      end

      # @return [Hash{String => Hash}] each fitted class judged
      def fit(intervals, names)
        needed = names.size + 1 + SPARE_INTERVALS
        return names.to_h { |name| [name, thin("few_intervals")] } if intervals.size < needed

        rows = intervals.map { |interval| [interval.seconds, *names.map { |name| interval.counts.fetch(name, 0) }] }
        fit = trimmed(rows, intervals.map(&:growth_kb), needed)
        return names.to_h { |name| [name, thin("collinear")] } unless fit

        names.each_with_index.to_h do |name, at|
          [name, judged(fit.coefficients[at + 1], fit.half_widths[at + 1], fit.vifs[at + 1])]
        end
      end

      # The fit, made again without the intervals it explains worst, when they are gross outliers: a transient
      # allocation of megabytes caught by one reading and gone by the next (seen in a Sidekiq worker: 4-5 MiB there at
      # one reading, in no class's count) would otherwise move every class's figure. An outlier is beyond OUTLIER
      # robust standard deviations (1.4826 × the residuals' median absolute deviation), which normal noise
      # reaches once in 370 intervals, so a fit with honest noise loses next to nothing.
      # @return [LeastSquares::Fit, nil]
      def trimmed(rows, growth, needed)
        fit = LeastSquares.call(rows, growth)
        return fit unless fit

        kept = inliers(fit.residuals)
        return fit if kept.size == rows.size || kept.size < needed

        LeastSquares.call(rows.values_at(*kept), growth.values_at(*kept)) || fit
      end

      # The indexes of the residuals within OUTLIER robust standard deviations of their median.
      def inliers(residuals)
        center = Statistics.median(residuals)
        spread = 1.4826 * Statistics.median(residuals.map { |value| (value - center).abs })
        return (0...residuals.size).to_a if spread.zero?

        (0...residuals.size).select { |at| (residuals[at] - center).abs <= OUTLIER * spread }
      end

      # KiB per job to KiB per 1,000 jobs, and the judgement.
      def judged(kb_per_job, half, vif)
        growth = (kb_per_job * 1000).round(1)
        interval = [((kb_per_job - half) * 1000).round(1), ((kb_per_job + half) * 1000).round(1)]
        { growth_kb_per_1k_jobs: growth, growth_kb_per_1k_jobs_ci: interval, **judgement(interval, vif) }
      end

      def judgement(interval, vif)
        return { judgement: "too_thin", why: "collinear" } if vif > MAX_VIF
        return { judgement: "growing", why: nil } if interval.first > MATERIAL_KB_PER_1K
        return { judgement: "not_growing", why: nil } if interval.last < MATERIAL_KB_PER_1K

        { judgement: "too_thin", why: "wide" }
      end

      def thin(why) = { growth_kb_per_1k_jobs: nil, growth_kb_per_1k_jobs_ci: nil, judgement: "too_thin", why: why }

      private_class_method :intervals, :readings, :interval, :own_intervals, :memory_kb, :at, :fit, :trimmed, :inliers,
                           :judged, :judgement, :thin
    end
  end
end
