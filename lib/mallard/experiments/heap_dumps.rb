# frozen_string_literal: true

require "fileutils"
require "net/http"
require_relative "../agent/heap_dumper"

module Mallard
  module Experiments
    # `mallard heap`'s schedule, run by the soak each tick (Experiments::Soak's ticker): three dump requests at the
    # boundaries of equal windows of the load (a quarter, half and three quarters in), answered by the agent
    # (Agent::HeapDumper), and the app's own answers timed by mallard while each dump is being written.
    class HeapDumps
      FRACTIONS = [0.25, 0.5, 0.75].freeze
      REQUEST_TIMEOUT = 5
      DUMP_TIMEOUT = 120

      # @param url [#call] the app's URL once it is up (nil: not an HTTP target, no latency)
      def initialize(run_dir:, duration:, url: nil)
        @dir = run_dir.file(Run::HeapReader::DIRECTORY)
        FileUtils.mkdir_p(@dir, mode: 0o700)
        @times = FRACTIONS.map { |fraction| fraction * duration }
        @url = url
        @requested = 0
        @timings = []
        @errors = 0
        @probes = []
      end

      def env = { Agent::HeapDumper::VARIABLE => @dir }

      # @param elapsed [Float] seconds since load began
      def tick(elapsed)
        number = @requested + 1
        return if number > @times.size || elapsed < @times[number - 1]

        @requested = number
        File.write(File.join(@dir, "request-#{number}"), "")
        url = @url&.call
        @probes << Thread.new { time_answers(url, number) } if url
      end

      # Waits, bounded, for every requested dump to be written, and for the timing of the app's answers to end.
      def finish
        deadline = Clock.monotonic + DUMP_TIMEOUT
        sleep 0.1 until (1..@requested).all? { |number| ended?(number) } || Clock.monotonic > deadline
        @probes.each(&:join)
      end

      # @return [Hash, nil] Summary::HeapLatency members
      def latency
        return if @timings.empty? && @errors.zero?

        sorted = @timings.sort
        { requests: @timings.size + @errors, p50_ms: Analysis::Statistics.median(sorted), max_ms: sorted.last,
          errors: @errors }
      end

      private

      def ended?(number)
        !Dir.glob(File.join(@dir, "heap-*-#{number}.{done,failed}")).empty?
      end

      # One request at a time, from the request for a dump until it is written.
      def time_answers(url, number)
        uri = URI(url)
        deadline = Clock.monotonic + DUMP_TIMEOUT
        Net::HTTP.start(uri.host, uri.port, open_timeout: REQUEST_TIMEOUT, read_timeout: REQUEST_TIMEOUT) do |http|
          time_one(http, uri) until ended?(number) || Clock.monotonic > deadline
        end
      rescue SystemCallError, IOError, Timeout::Error => e
        @errors += 1
        warn "mallard: timing the app during a dump: #{e.message}" if ENV["MALLARD_DEBUG"]
      end

      def time_one(http, uri)
        started = Clock.monotonic
        http.request(Net::HTTP::Get.new(uri.request_uri))
        @timings << ((Clock.monotonic - started) * 1000)
      rescue Net::HTTPBadResponse, Timeout::Error
        @errors += 1
      end
    end
  end
end
