# frozen_string_literal: true

require "net/http"

module Mallard
  module Experiments
    # How the app answers mallard's own requests while `mallard heap` runs its load: one request at a time to the
    # path the load requests (--path, the first one), from the first dump request until the load ends, each
    # recorded as when it started (seconds into the load) and how long it took (nil: it failed). Which of them fell
    # inside a dump, and which make the baseline outside the dumps, is Analysis::HeapLatency's to work out.
    class HeapProbe
      REQUEST_TIMEOUT = 5
      # A pause between requests: the probe samples the app's answers, it is not part of the load.
      GAP = 0.05

      attr_reader :records

      # @param url [String] the app's URL with the load's path
      # @param clock [#call] seconds into the load
      def initialize(url, clock)
        @uri = URI(url)
        @clock = clock
        @records = []
        @running = true
        @thread = Thread.new { run }
        @thread.name = "mallard-heap-probe"
      end

      def stop
        @running = false
        @thread.join
        self
      end

      private

      def run
        connect { |http| timed(http) while @running }
      rescue SystemCallError, IOError, Timeout::Error, Net::HTTPBadResponse
        @records << [@clock.call.round(3), nil]
        retry if @running && sleep(GAP * 10)
      end

      def connect(&)
        Net::HTTP.start(@uri.host, @uri.port, open_timeout: REQUEST_TIMEOUT, read_timeout: REQUEST_TIMEOUT, &)
      end

      def timed(http)
        started = @clock.call
        response = http.request(Net::HTTP::Get.new(@uri.request_uri))
        ms = response.code.start_with?("5") ? nil : ((@clock.call - started) * 1000).round(2)
        @records << [started.round(3), ms]
        sleep GAP
      end
    end
  end
end
