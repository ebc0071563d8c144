# frozen_string_literal: true

require_relative "json_text"

module Mallard
  module Agent
    # Writes one interval's record as a JSON line into a String that lives as long as the recorder.
    #
    # Why not a Hash and JSON.generate: the agent thread builds its record while the app keeps the GVL and
    # runs minor GCs, often a dozen before the record is written. Objects held that long are promoted to the
    # old generation, and once dropped they wait for a major GC, which a steady app may not run for tens of
    # seconds. Three 500-element arrays, 500 row arrays and a 10 KB string per interval were, under a one-thread
    # Puma, a creep of about 1 MB per 100,000 requests that looked like the app's own (bench/agent_memory.rb).
    # Here only the one long-lived String and the caller's long-lived buffers are held; each number's text is
    # garbage as soon as it is appended.
    #
    # Nor does it load the json library (JsonText says why).
    class RecordLine
      # The per-unit columns: a web app's requests (queue_ms: the wait before the app got one, from the
      # X-Request-Start its client sent), or a job worker's jobs (JobMiddleware).
      REQUEST_COLUMNS = %w[in_app_ms body_ms chunks queue_ms].freeze
      # A job's fourth column is its class, as its index in the line's job_classes.
      JOB_COLUMNS = %w[job_ms queue_ms failed job_class].freeze

      # Appends a job worker's tally per class (Recorder#tally) as the "job_classes" member: each class's name, jobs,
      # failed and total job_ms so far in this process, in the order of their indexes.
      def self.job_classes(out, classes)
        out << ',"job_classes":['
        classes.each do |name, counts|
          out << "," unless out.end_with?("[")
          out << "["
          JsonText.string(out, name)
          out << "," << counts[1].to_s << "," << counts[2].to_s << "," << counts[3].round(3).to_s << "]"
        end
        out << "]"
      end

      def initialize(columns: REQUEST_COLUMNS)
        @line = +""
        @columns = columns
      end

      # @param time [Float] seconds since mallard's origin
      # @param samples [Array] flat rows of Recorder::FIELDS values (in_app_ms, body_ms, chunks, queue_ms); the
      #   first `count` rows are read
      # @param sampled [Boolean] whether a reservoir thinned the interval's requests down to the samples
      # @param requests [Integer] units of work finished so far: requests, or a job worker's jobs
      # @param jobs [Array(Integer, Integer, String), nil] a job worker's jobs running at this moment, jobs failed so
      #   far, and its job_classes member (RecordLine.job_classes)
      # @return [String] the line, valid until the next call
      def build(time:, pid:, gc_stat:, requests:, samples:, count:, sampled: false, jobs: nil)
        @line.clear
        @line << '{"kind":"agent","t":' << time.round(6).to_s << ',"pid":' << pid.to_s
        @line << ',"gc":'
        JsonText.object(@line, gc_stat)
        @line << ',"requests":' << requests.to_s
        job_counts(*jobs) if jobs
        columns(samples, count)
        @line << ',"requests_sampled":' << count.to_s if sampled
        @line << "}\n"
      end

      private

      def job_counts(busy, failed, classes = nil)
        @line << ',"busy":' << busy.to_s << ',"jobs_failed":' << failed.to_s
        @line << classes if classes
      end

      def columns(samples, count)
        column(@columns[0], samples, count, 0) { |ms| ms.round(3).to_s }
        column(@columns[1], samples, count, 1) { |ms| ms.nil? ? "null" : ms.round(3).to_s }
        column(@columns[2], samples, count, 2, &:to_s)
        # A request's wait is known only when its client sent X-Request-Start: the column is left out otherwise.
        return unless @columns[3] && (0...count).any? { |row| samples[(row * Recorder::FIELDS) + 3] }

        column(@columns[3], samples, count, 3) { |ms| ms.nil? ? "null" : ms.round(3).to_s }
      end

      def column(name, samples, count, field)
        @line << ',"' << name << '":['
        count.times do |row|
          @line << "," unless row.zero?
          @line << yield(samples[(row * Recorder::FIELDS) + field])
        end
        @line << "]"
      end
    end
  end
end
