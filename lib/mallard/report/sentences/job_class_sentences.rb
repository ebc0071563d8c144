# frozen_string_literal: true

module Mallard
  module Report
    # A job worker's figures per job class (Summary::JobClass), worded once for SoakSentences: the classes memory
    # grows with, named; a line per class, and the cells of the HTML page's table; what the figures are. Empty for a
    # run without classes.
    class JobClassSentences
      include Formatting

      JUDGEMENTS = { "growing" => "growing", "not_growing" => "not growing", "too_thin" => "too thin to say" }.freeze
      WHY = { "few_jobs" => "too few of its jobs", "few_intervals" => "too few readings",
              "collinear" => "its count moved with another's or with the clock",
              "wide" => "the interval spans growth and none" }.freeze
      HEADINGS = ["Class", "Jobs", "Jobs/s", "p50", "p99", "Failed", "Growth per 1,000 jobs", "Judgement"].freeze

      # @param classes [Array<Summary::JobClass>, nil]
      def initialize(classes)
        @classes = Array(classes)
      end

      def any? = !@classes.empty?

      # The classes memory grows with, named; nil when none is.
      def named
        growing = @classes.select { |part| part.judgement == "growing" }
        return if growing.empty?

        "Memory grows with #{growing.map { |part| "#{Text.printable(part.job_class)} (#{growth(part)})" }.join(', ')}" \
          ": its jobs keep what they allocate."
      end

      def lines = @classes.map { |part| line(part) }

      # Per class, HEADINGS' cells.
      def rows
        @classes.map do |part|
          [Text.printable(part.job_class), count(part.jobs), number(part.per_s), ms(part.time_ms_p50),
           ms(part.time_ms_p99), count(part.failed), growth(part), judgement(part)]
        end
      end

      # What the figures are, said once beside them (nil without classes).
      def basis
        return unless any?

        format("Per job class: growth is the KiB of anonymous RSS each job of the class added to its process " \
               "(95%% interval), fitted over each process's ledger readings (but those a major GC ran " \
               "between) against the jobs of each class run between them and the seconds passed; classes are told " \
               "apart only where their mix varies. Growing: the whole interval above %<material>s KiB per 1,000 " \
               "jobs; not growing: below it.", material: count(Analysis::ClassGrowth::MATERIAL_KB_PER_1K))
      end

      def all = [named, *lines, basis].compact

      private

      def line(part)
        format("%<name>s: %<jobs>s jobs (%<rate>s/s), p50 %<p50>s, p99 %<p99>s, %<failed>s failed — %<judged>s, " \
               "%<growth>s per 1,000 jobs",
               name: Text.printable(part.job_class), jobs: count(part.jobs), rate: number(part.per_s),
               p50: ms(part.time_ms_p50), p99: ms(part.time_ms_p99), failed: count(part.failed),
               judged: judgement(part), growth: growth(part))
      end

      def judgement(part)
        said = JUDGEMENTS.fetch(part.judgement, part.judgement.to_s)
        part.why ? "#{said} (#{WHY.fetch(part.why, part.why)})" : said
      end

      def growth(part)
        kb = part.growth_kb_per_1k_jobs
        return "—" unless kb

        low, high = part.growth_kb_per_1k_jobs_ci
        format("%<kb>+.0f KiB (%<low>.0f … %<high>.0f)", kb: kb, low: low, high: high).then { |text| grouped(text) }
      end

      def ms(value) = value ? "#{number(value)} ms" : "—"
      def number(value) = value ? format("%.1f", value) : "—"
    end
  end
end
