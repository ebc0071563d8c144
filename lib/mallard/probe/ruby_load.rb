# frozen_string_literal: true

require "net/http"
require "uri"
require_relative "../errors"
require_relative "load_result"
require_relative "load_settings"
require_relative "../analysis/statistics"
require_relative "../clock"

module Mallard
  module Probe
    # The load client for machines without wrk: one Ruby thread per connection, each holding a
    # keep-alive Net::HTTP connection and timing every request on the Clock.monotonic clock. It runs in
    # mallard's own process, so it competes with the app for CPU (see Load.fallback_note).
    class RubyLoad
      include LoadSettings
      REQUEST_TIMEOUT = 5
      STOP_GRACE = 3
      # After a refused connection, so a server that is down does not make every thread spin.
      CONNECT_BACKOFF = 0.01
      NETWORK_ERRORS = [IOError, SystemCallError, SocketError, Timeout::Error, Net::ProtocolError,
                        Net::HTTPBadResponse, Net::HTTPHeaderSyntaxError].freeze
      # wrk sends no Accept-Encoding; without this Net::HTTP asks for gzip and inflates every body.
      HEADERS = { "accept-encoding" => "identity" }.freeze

      attr_reader :url, :paths, :duration, :requests, :concurrency, :log_path

      # @param duration [Numeric] seconds; no request starts after it
      # @param requests [Integer, nil] how many requests to send at most (failed ones included)
      # @param log_path [String, nil] accepted for the same interface as Wrk; nothing is logged
      # @param reconnect [Boolean] every request on a new connection (Connection: close, as Wrk sends it)
      def initialize(url:, duration:, paths: ["/"], requests: nil, concurrency: 10, log_path: nil,
                     timeout: REQUEST_TIMEOUT, reconnect: false)
        @url = url
        @headers = reconnect ? HEADERS.merge("connection" => "close") : HEADERS
        @uri = URI(url)
        @paths = checked_paths(paths)
        @duration = positive(duration, "duration")
        @requests = requests && Integer(positive(requests, "requests"))
        @concurrency = Integer(positive(concurrency, "concurrency"))
        @timeout = positive(timeout, "timeout")
        @log_path = log_path
        @lock = Mutex.new
        @tally = { issued: 0, completed: 0, latencies: [], status_codes: Hash.new(0), errors: Hash.new(0) }
      end

      def start
        raise Error, "the load was already started" if @workers

        @started_at = Clock.monotonic
        @deadline = @started_at + @duration
        @workers = Array.new(@concurrency) do
          Thread.new { work }.tap { |worker| worker.report_on_exception = false } # #wait re-raises
        end
        self
      end

      def running?
        @workers ? @workers.any?(&:alive?) : false
      end

      # @return [Boolean] whether every worker has ended (true also when never started)
      def wait(timeout = nil)
        return true unless @workers

        deadline = timeout && (Clock.monotonic + timeout)
        @workers.all? { |worker| worker.join(deadline && [deadline - Clock.monotonic, 0].max) }
      end

      # No new request starts; those in flight get the grace period, then their threads are killed. planned: the load
      # ends early by design (a soak that decided), so its figures are not marked interrupted.
      def stop(grace: STOP_GRACE, planned: false)
        return self unless running?

        @lock.synchronize do
          @stopping = true
          @planned = planned
        end
        @workers.each(&:kill) unless wait(grace)
        wait
        self
      end

      # Waits for the run to end, then summarises it.
      # @return [LoadResult]
      def result
        raise Error, "the load was not started" unless @workers

        wait
        @lock.synchronize do
          LoadResult.build(tool: "ruby", requests: @tally[:completed], duration_s: @finished_at - @started_at,
                           errors: @tally[:errors], latency_ms: latency_summary(@tally[:latencies].sort),
                           status_codes: @tally[:status_codes].sort.to_h, interrupted: (@stopping && !@planned) == true)
        end
      end

      private

      def work
        http = connection
        while (path = claim)
          send_request(http, path)
        end
      ensure
        http&.finish if http&.started?
        @lock.synchronize { @finished_at = Clock.monotonic }
      end

      def connection
        Net::HTTP.new(@uri.host, @uri.port).tap do |http|
          http.use_ssl = @uri.scheme == "https"
          http.open_timeout = http.read_timeout = http.write_timeout = @timeout
          http.max_retries = 0 # a retried request would hide an error and blur its latency
        end
      end

      # The next path, round robin, or nil once the run is over: stopped, past the deadline, or
      # every allowed request handed out.
      def claim
        @lock.synchronize do
          next if @stopping || Clock.monotonic >= @deadline || (@requests && @tally[:issued] >= @requests)

          @tally[:issued] += 1
          @paths[(@tally[:issued] - 1) % @paths.size]
        end
      end

      # The body is read as it arrives and each chunk dropped, as wrk does: held whole, a 10 MB response
      # times the connections would be hundreds of MB in mallard's process. The latency still ends when
      # the last byte has arrived.
      def send_request(http, path)
        http.start unless http.started?
        started = Clock.monotonic
        status = http.request(Net::HTTP::Get.new(path, request_start)) { |response| discard_body(response) }.code
        record(Integer(status), Clock.monotonic - started)
      rescue *NETWORK_ERRORS => e
        fail_request(http, e)
      end

      # The header wrk.lua sends too: when the request left, so the app's agent can tell its wait for a thread.
      def request_start
        @headers.merge("X-Request-Start" => "t=#{Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond)}")
      end

      def discard_body(response)
        response.read_body(&:clear)
      end

      def record(status, seconds)
        @lock.synchronize do
          @tally[:completed] += 1
          @tally[:latencies] << (seconds * 1000.0)
          @tally[:status_codes][status.to_s] += 1
          @tally[:errors][:status] += 1 unless (200..399).cover?(status)
        end
      end

      # The connection is dropped after any error: its state is unknown, and wrk reconnects too.
      def fail_request(http, error)
        kind = error_kind(error)
        @lock.synchronize { @tally[:errors][kind] += 1 }
        http.finish if http.started?
        sleep CONNECT_BACKOFF if kind == :connect
      rescue IOError
        nil
      end

      def error_kind(error)
        case error
        when Errno::ECONNREFUSED, Errno::EHOSTUNREACH, Errno::ENETUNREACH, SocketError then :connect
        when Timeout::Error then :timeout # Net::OpenTimeout, ReadTimeout and WriteTimeout
        when Errno::EPIPE then :write
        else :read
        end
      end

      def latency_summary(sorted)
        return {} if sorted.empty?

        percentiles = [50, 90, 99].to_h { |pct| [:"p#{pct}", Analysis::Statistics.percentile(sorted, pct)] }
        percentiles.merge(max: sorted.last, mean: sorted.sum / sorted.size)
      end
    end
  end
end
