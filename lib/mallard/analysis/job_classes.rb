# frozen_string_literal: true

require_relative "statistics"
require_relative "job_figures"
require_relative "class_growth"

module Mallard
  module Analysis
    # A job worker's figures per job class (the agent's tally, Agent::Recorder#tally): jobs, their share of the rate,
    # time p50/p99 from the rows the agent sampled, failures, and memory growth per 1,000 jobs of the class with its
    # interval (ClassGrowth), judged growing, not growing or too thin to say. Pure.
    module JobClasses
      module_function

      # @param run [Run::SoakRun]
      # @param from_t [Float, nil] the start of the span whose growth is attributed (the steady window's)
      # @return [Array<Summary::JobClass>, nil] nil for a run that is no job worker's, or recorded no classes
      def call(run, from_t: nil)
        return unless run.jobs?

        totals = totals(run.agent)
        return if totals.empty?

        growth = ClassGrowth.call(run, from_t: from_t)
        rate = JobFigures.per_second(run.load_totals)
        all = totals.values.sum { |jobs, _| jobs }
        times = times(run.agent)
        totals.sort_by { |name, (jobs, _)| [-jobs, name] }.map do |name, (jobs, failed)|
          part(name, jobs, failed, times[name], growth[name])
            .with(per_s: rate && all.positive? ? (rate * jobs / all).round(1) : nil)
        end
      end

      # Per class, [jobs, failed]: each process's latest tally summed.
      def totals(records)
        latest = records.select(&:job_classes).to_h { |record| [record.pid, record] }.values
        latest.each_with_object(Hash.new { |hash, name| hash[name] = [0, 0] }) do |record, sums|
          ClassGrowth.tally(record).each do |name, (jobs, failed)|
            sums[name][0] += jobs
            sums[name][1] += failed
          end
        end
      end

      # Per class, the job_ms of the rows the agent kept (each row names its class by its index in that record's
      # tally): a random sample of each interval's jobs, so of each class's.
      def times(records)
        records.each_with_object(Hash.new { |hash, name| hash[name] = [] }) do |record, times|
          names = Array(record.job_classes).map(&:first)
          Array(record.job_class).zip(Array(record.job_ms)).each do |index, ms|
            times[names[index]] << ms if index && ms && names[index]
          end
        end
      end

      def part(name, jobs, failed, times, growth)
        Summary::JobClass.new(job_class: name, jobs: jobs, failed: failed,
                              time_ms_p50: Statistics.percentile(Array(times), 50)&.round(1),
                              time_ms_p99: Statistics.percentile(Array(times), 99)&.round(1), **growth.to_h)
      end

      private_class_method :totals, :times, :part
    end
  end
end
